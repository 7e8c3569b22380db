// Exporting subscribers with the real client against the real emulator over HTTP: the
// file, its safety, where it may go, and that it imports back unchanged.
import { mkdir, readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { readSubscriberCsv } from '../../src/subscribers/csv-read.js';
import { exportSubscribers } from '../../src/subscribers/export.js';
import { importSubscribers } from '../../src/subscribers/import.js';
import { emulatorFixture, type EmulatorFixture } from '../helpers/service/emulator.js';
import { tempDir } from '../helpers/process/cli.js';
import { textContaining } from '../helpers/matchers.js';

let fx: EmulatorFixture | undefined;
let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await fx?.close();
  await cleanup?.();
  fx = undefined;
  cleanup = undefined;
});

const PEOPLE = [
  { email: 'ada@example.com', name: 'Lovelace, Ada', verified_at: '2024-05-06T00:00:00.000000Z', created_at: '2025-01-01T00:00:00.000000Z' },
  { email: 'evil@example.org', name: '=HYPERLINK("http://example.com/x","click")', verified_at: '2024-05-07T00:00:00.000000Z', created_at: '2025-01-01T00:00:00.000000Z' },
  { email: '-dash@example.com', name: '@SUM(1+1)', verified_at: '2024-05-08T00:00:00.000000Z', created_at: '2025-01-01T00:00:00.000000Z' },
  { email: 'zoe@example.com', name: 'Zoë "Z" Martin', verified_at: null, created_at: '2025-01-01T00:00:00.000000Z' },
];

describe('exportSubscribers', () => {
  it('writes a header row, escapes formulas, atomically, owner-only; the file imports back unchanged', async () => {
    fx = await emulatorFixture();
    fx.ws.subscribers.push(...PEOPLE.map((p) => ({ ...p })));
    const t = await tempDir();
    cleanup = t.cleanup;
    const out = join(t.dir, 'subscribers.csv');
    const r = await exportSubscribers({ client: fx.client(), out });
    expect(r).toMatchObject({ count: 4, file: out });
    const text = await readFile(out, 'utf8');
    expect(text.split('\r\n')).toEqual([
      '\uFEFFemail,name,verified_at,created_at',
      'ada@example.com,"Lovelace, Ada",2024-05-06T00:00:00.000000Z,2025-01-01T00:00:00.000000Z',
      `evil@example.org,"'=HYPERLINK(""http://example.com/x"",""click"")",2024-05-07T00:00:00.000000Z,2025-01-01T00:00:00.000000Z`,
      "'-dash@example.com,'@SUM(1+1),2024-05-08T00:00:00.000000Z,2025-01-01T00:00:00.000000Z",
      'zoe@example.com,"Zoë ""Z"" Martin",,2025-01-01T00:00:00.000000Z',
      '',
    ]);
    expect((await stat(out)).mode & 0o777).toBe(0o600);
    expect(await readdir(t.dir)).toEqual(['subscribers.csv']);

    // Round trip into an empty workspace: same addresses, names and verification dates.
    const target = await emulatorFixture();
    try {
      const csv = await readSubscriberCsv(out, { verifiedColumn: 'verified_at' });
      const imported = await importSubscribers({ client: target.client(), csv, verifiedAt: undefined });
      expect(imported.added.map((a) => [a.email, a.name, a.verified_at])).toEqual([
        ['ada@example.com', 'Lovelace, Ada', '2024-05-06'],
        ['evil@example.org', '=HYPERLINK("http://example.com/x","click")', '2024-05-07'],
        ['-dash@example.com', '@SUM(1+1)', '2024-05-08'],
      ]);
      // The unverified subscriber stays out unless a date is declared: it is not made verified.
      expect(imported.skipped.map((s) => [s.email, s.reason])).toEqual([['zoe@example.com', 'no-verification-date']]);
    } finally {
      await target.close();
    }
  });

  it('is safe read with "," and with ";" (and tabs): no cell starts with a formula character; it imports back unchanged', async () => {
    // Anyone picks their name on the hosted sign-up form; a spreadsheet set to split on ";"
    // (Excel in many European locales) reads a comma file's cells in parts.
    const names = [
      'x;=HYPERLINK("http://evil.example/x","click");y',
      'a;+1;-2;@SUM(A1)',
      'line\n=1+1',
      'tab\t@cmd',
      'q;"=2+2',
      "apostrophe;'=3",
      'Lovelace, Ada',
    ];
    fx = await emulatorFixture();
    fx.ws.subscribers.push(...names.map((name, i) => ({ email: `p${i}@example.com`, name, verified_at: '2024-05-06T00:00:00.000000Z', created_at: '2025-01-01T00:00:00.000000Z' })));
    const t = await tempDir();
    cleanup = t.cleanup;
    const out = join(t.dir, 'subscribers.csv');
    await exportSubscribers({ client: fx.client(), out });
    const text = (await readFile(out, 'utf8')).replace(/^\uFEFF/, '');
    const formula = /^"*[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;
    for (const delimiter of [',', ';', '\t']) {
      const rows: string[][] = parse(text, { delimiter, relax_quotes: true, relax_column_count: true });
      expect(rows.length, delimiter).toBeGreaterThan(names.length);
      for (const cell of rows.flat()) expect(cell, `read with ${JSON.stringify(delimiter)}`).not.toMatch(formula);
    }
    // Read with ",", each name is one cell: quoted where any locale's separator is inside.
    const rows: string[][] = parse(text, { delimiter: ',' });
    expect(rows.slice(1).map((r) => r[1])).toEqual([
      'x;\'=HYPERLINK("http://evil.example/x","click");y',
      "a;'+1;'-2;'@SUM(A1)",
      "line\n'=1+1",
      "tab\t'@cmd",
      'q;\'"=2+2',
      "apostrophe;''=3",
      'Lovelace, Ada',
    ]);
    expect(text).toContain('"tab\t\'@cmd"');
    // Export, then import: the names as written (the reader collapses white space in every name).
    const csv = await readSubscriberCsv(out, { verifiedColumn: 'verified_at' });
    expect(csv.rows.map((r) => r.name)).toEqual(names.map((n) => n.replace(/\s+/g, ' ')));
  });

  it('refuses a path inside a protected directory before any request; a missing directory is E_FILE; a look-alike sibling is fine', async () => {
    fx = await emulatorFixture();
    const t = await tempDir();
    cleanup = t.cleanup;
    const content = join(t.dir, 'content');
    await mkdir(join(content, '_data'), { recursive: true });
    const protectedDirs = [{ dir: content, what: 'the content directory (committed to git)' }];
    await expect(exportSubscribers({ client: fx.client(), out: join(content, '_data', 'subs.csv'), protectedDirs })).rejects.toMatchObject({
      code: 'E_USAGE',
      message: textContaining('is inside the content directory (committed to git)'),
    });
    await expect(exportSubscribers({ client: fx.client(), out: content, protectedDirs })).rejects.toMatchObject({ code: 'E_USAGE' });
    // A name that starts with two dots is still inside the folder.
    await expect(exportSubscribers({ client: fx.client(), out: join(content, '..subs.csv'), protectedDirs })).rejects.toMatchObject({ code: 'E_USAGE' });
    expect(fx.emu.log).toEqual([]);

    await expect(exportSubscribers({ client: fx.client(), out: join(t.dir, 'no-such-dir', 'x.csv') })).rejects.toMatchObject({ code: 'E_FILE' });
    const sibling = join(t.dir, 'content-export.csv'); // a name that merely starts like a protected directory
    await exportSubscribers({ client: fx.client(), out: sibling, protectedDirs });
    expect(await readFile(sibling, 'utf8')).toBe('\uFEFFemail,name,verified_at,created_at\r\n');
  });

  it('returns the CSV for stdout: plain UTF-8 with LF, no BOM', async () => {
    fx = await emulatorFixture();
    fx.ws.subscribers.push({ ...PEOPLE[0]! });
    const r = await exportSubscribers({ client: fx.client() });
    expect(r.csv).toBe('email,name,verified_at,created_at\nada@example.com,"Lovelace, Ada",2024-05-06T00:00:00.000000Z,2025-01-01T00:00:00.000000Z\n');
  });
});
