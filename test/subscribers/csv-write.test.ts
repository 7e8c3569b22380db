// Writing subscriber CSV: header row, quoting, formula-injection escapes (OWASP), and
// what the reader makes of it again.
import { describe, expect, it } from 'vitest';
import type { Subscriber } from '../../src/service/schemas.js';
import { parseSubscriberCsv } from '../../src/subscribers/csv-read.js';
import { subscribersToCsv } from '../../src/subscribers/csv-write.js';

const sub = (email: string, name: string): Subscriber => ({ email, name, verified_at: '2024-05-06T00:00:00.000000Z', created_at: '2026-01-02T03:04:05.000000Z' });

describe('subscribersToCsv', () => {
  it('writes a header row and the service fields', () => {
    expect(subscribersToCsv([sub('ann@example.com', 'Ann Lee')])).toBe(
      'email,name,verified_at,created_at\nann@example.com,Ann Lee,2024-05-06T00:00:00.000000Z,2026-01-02T03:04:05.000000Z\n',
    );
    expect(subscribersToCsv([])).toBe('email,name,verified_at,created_at\n');
  });

  it('escapes cells starting with =, +, -, @, tab, CR (and full-width forms) with a leading apostrophe', () => {
    const names = ['=HYPERLINK("http://example.com","x")', '+1', '-2+3', '@SUM(A1:A2)', '\tcmd', '\rcmd', '\uFF1D1+1', 'Plain'];
    const csv = subscribersToCsv(names.map((n, i) => sub(`p${i}@example.com`, n)));
    const cells = parseSubscriberCsv(Buffer.from(csv), 'x.csv').rows; // the reader undoes the escape
    // Names come back as written, trimmed and white space collapsed as the reader does for every name.
    expect(cells.map((c) => c.name)).toEqual(names.map((n) => n.replace(/\s+/g, ' ').trim()));
    const lines = csv.split('\n');
    expect(lines[1]).toBe('p0@example.com,"\'=HYPERLINK(""http://example.com"",""x"")",2024-05-06T00:00:00.000000Z,2026-01-02T03:04:05.000000Z');
    expect(lines[2]).toContain(",'+1,");
    expect(lines[3]).toContain(",'-2+3,");
    expect(lines[4]).toContain(",'@SUM(A1:A2),");
    expect(lines[5]).toContain(`,"'\tcmd",`); // a tab is a separator in some locales: quoted
    expect(csv).toContain(`"'\rcmd"`);
    expect(csv).toContain(",'\uFF1D1+1,");
    expect(csv).toContain(',Plain,');
    // No cell of the file starts with a trigger.
    for (const line of lines.slice(1, -1)) for (const cell of line.split(',')) expect(cell).not.toMatch(/^"?[=+\-@\t\r]/);
  });

  it('escapes addresses that start with a trigger too, and the reader restores them', () => {
    const csv = subscribersToCsv([sub('-dash@example.com', ''), sub('+plus@example.com', '')]);
    expect(csv).toContain("\n'-dash@example.com,");
    expect(parseSubscriberCsv(Buffer.from(csv), 'x.csv').rows.map((r) => r.email)).toEqual(['-dash@example.com', '+plus@example.com']);
  });

  it('quotes commas, quotes and line breaks; spreadsheet form has a BOM and CRLF', () => {
    const csv = subscribersToCsv([sub('ann@example.com', 'Lee, "Ann"\nJr'), sub('bob@example.com', 'Bob\nLee'), sub('cy@example.com', 'Cy\rLee')], { spreadsheet: true });
    expect(csv.startsWith('\uFEFFemail,name,verified_at,created_at\r\n')).toBe(true);
    expect(csv).toContain('ann@example.com,"Lee, ""Ann""\nJr",');
    expect(csv).toContain('bob@example.com,"Bob\nLee",');
    expect(csv).toContain('cy@example.com,"Cy\rLee",');
    expect(subscribersToCsv([sub('bob@example.com', 'Bob\nLee')])).toContain('bob@example.com,"Bob\nLee",');
    expect(csv.endsWith('\r\n')).toBe(true);
  });

  it('maps addresses when asked (masking)', () => {
    expect(subscribersToCsv([sub('ann@example.com', 'Ann')], { email: () => 'a***@example.com' })).toContain('\na***@example.com,Ann,');
  });
});
