// Reading subscriber CSV files: encodings, delimiters, line ends, quoting, header names,
// line numbers, and bad files reported with file, line, field and fix.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ChangelogSyncError } from '../../src/core/errors.js';
import { headerKey, parseSubscriberCsv, readSubscriberCsv, unescapeFormula } from '../../src/subscribers/csv-read.js';
import { textContaining } from '../helpers/matchers.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/subscribers/', import.meta.url));
const parse = (text: string | Buffer, verifiedColumn?: string) => parseSubscriberCsv(Buffer.isBuffer(text) ? text : Buffer.from(text), 'list.csv', { verifiedColumn });
const fail = (fn: () => unknown): ChangelogSyncError => {
  try {
    fn();
  } catch (err) {
    if (err instanceof ChangelogSyncError) return err;
    throw err;
  }
  throw new Error('expected an error');
};

describe('the fixtures', () => {
  it('BOM, semicolons, CRLF, quoted delimiters and line breaks, unicode: cells and start lines', async () => {
    const csv = await readSubscriberCsv(`${FIXTURES}bom-semicolon-crlf.csv`, { verifiedColumn: 'Confirmed At' });
    expect(csv.delimiter).toBe(';');
    expect(csv.header[0]).toBe('Email Address'); // no BOM left on the first header
    expect(csv.columns).toEqual({
      email: { index: 0, header: 'Email Address' },
      firstName: { index: 1, header: 'First Name' },
      lastName: { index: 2, header: 'Last Name' },
      verified: { index: 3, header: 'confirmed_at' },
    });
    expect(csv.rows.map((r) => [r.line, r.email, r.name, r.verified])).toEqual([
      [2, 'zoe.martin@example.com', 'Zoë Martin', '2024-03-01 09:15:00'],
      [3, '  Jose.Garcia@Example.ORG ', 'José García', '2024-03-02T10:00:00Z'],
      [4, 'li.lei@example.com', '雷 李', '2024-03-03'],
      [5, 'ann.oneil@example.com', "Ann; Jr. O'Neil", '2024-03-04T23:30:00-05:00'],
      [6, 'multi.line@example.org', 'Maja Nowak Kowalska', '2024-03-05'], // a quoted CRLF inside: spans lines 6-7
      [9, 'ZOE.MARTIN@EXAMPLE.COM', 'Zoe Martin', '2024-03-01'], // after the empty line 8
      [10, 'not-an-email', 'Bad Address', '2024-03-01'],
      [11, 'kai@example.com', 'Kai Nakamura', '31/02/2024'],
      [12, 'noor@example.com', 'Noor Haddad', ''],
      [13, 'existing.member@example.com', 'Existing Member', '2023-12-01'],
    ]);
  });

  it('commas, LF, doubled quotes, a quoted LF, Cyrillic, a field too many, a blank row', async () => {
    const csv = await readSubscriberCsv(`${FIXTURES}comma-quoted.csv`);
    expect(csv.delimiter).toBe(',');
    expect(csv.columns.name).toEqual({ index: 1, header: 'Name' });
    expect(csv.columns.verified).toBeUndefined(); // date columns only when named
    expect(csv.dateColumns).toEqual(['verified_at', 'created_at']);
    expect(csv.blankRows).toBe(1);
    const byLine = new Map(csv.rows.map((r) => [r.line, r]));
    expect(byLine.get(2)?.name).toBe('Lovelace, Ada');
    expect(byLine.get(3)?.name).toBe('Grace "Amazing" Hopper');
    expect(byLine.get(4)?.name).toBe('Sam Taylor');
    expect(byLine.get(6)?.name).toBe('Иван Петров');
    expect(byLine.get(7)?.extraFields).toBe(1);
    expect(csv.rows.map((r) => r.line)).toEqual([2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13]);
  });
});

describe('headers', () => {
  it.each([
    ['email', 'email'],
    ['EMAIL', 'email'],
    ['Email Address', 'emailaddress'],
    ['E-mail', 'email'],
    ['e_mail', 'email'],
    [' First Name ', 'firstname'],
  ])('%j is matched as %j', (header, key) => expect(headerKey(header)).toBe(key));

  it('recognises name, or First Name + Last Name, case-insensitively', () => {
    expect(parse('E-MAIL,NAME\na@example.com,Ann\n').rows[0]).toMatchObject({ email: 'a@example.com', name: 'Ann' });
    expect(parse('email,first_name,LAST NAME\na@example.com,Ann,Lee\n').rows[0]!.name).toBe('Ann Lee');
    expect(parse('email,first name\na@example.com,Ann\n').rows[0]!.name).toBe('Ann');
    expect(parse('email\na@example.com\n').rows[0]!.name).toBe('');
  });

  it('refuses a file without an address column, naming the headers found and the accepted names', () => {
    const err = fail(() => parse('mail,name\na@example.com,Ann\n'));
    expect(err).toMatchObject({ code: 'E_VALIDATION', file: 'list.csv', line: 1, field: 'email' });
    expect(err.message).toContain('no email column in the header ("mail", "name")');
    expect(err.hint).toContain('"Email Address"');
  });

  it('refuses two address columns', () => {
    const err = fail(() => parse('Email,E-mail\na@example.com,b@example.com\n'));
    expect(err).toMatchObject({ code: 'E_VALIDATION', line: 1, field: 'E-mail' });
    expect(err.message).toContain('two address columns, "Email" and "E-mail"');
  });

  it('uses a verification column only when named, and refuses an unknown one', () => {
    expect(parse('email,created_at\na@example.com,2024-01-01\n').rows[0]!.verified).toBeUndefined();
    expect(parse('email,created_at\na@example.com,2024-01-01\n', 'created_at').rows[0]!.verified).toBe('2024-01-01');
    const err = fail(() => parse('email,created_at\na@example.com,2024-01-01\n', 'verified_at'));
    expect(err).toMatchObject({ code: 'E_VALIDATION', line: 1, field: 'verified_at' });
    expect(err.message).toContain('is not a column of the header ("email", "created_at")');
  });
});

describe('delimiter, encoding and syntax', () => {
  it('chooses the delimiter that finds the address column, even when values contain the other one', () => {
    expect(parse('email;name\na@example.com;Lee, Ann\n')).toMatchObject({ delimiter: ';', rows: [{ name: 'Lee, Ann' }] });
    expect(parse('email,name\na@example.com,Ann; Jr\n')).toMatchObject({ delimiter: ',', rows: [{ name: 'Ann; Jr' }] });
  });

  it('reads CR-only line ends and a last line without a line end', () => {
    expect(parse('email\ra@example.com\rb@example.com').rows.map((r) => [r.line, r.email])).toEqual([
      [2, 'a@example.com'],
      [3, 'b@example.com'],
    ]);
  });

  it('refuses Latin-1 with the line of the first bad byte, and UTF-16, with how to save as UTF-8', () => {
    const latin1 = Buffer.concat([Buffer.from('email,name\na@example.com,Ann\nb@example.com,Jos'), Buffer.from([0xe9]), Buffer.from('\n')]);
    const err = fail(() => parse(latin1));
    expect(err).toMatchObject({ code: 'E_FILE', file: 'list.csv', line: 3 });
    expect(err.hint).toContain('CSV UTF-8');
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('email\n', 'utf16le')]);
    expect(fail(() => parse(utf16))).toMatchObject({ code: 'E_FILE', message: 'list.csv is UTF-16, not UTF-8' });
  });

  it('reports an unclosed quote as E_FILE with its line and a fix', () => {
    const err = fail(() => parse('email,name\na@example.com,Ann\nb@example.com,"Bob\n'));
    expect(err.code).toBe('E_FILE');
    expect(err.message).toContain('not well-formed CSV');
    expect(err.hint).toContain('closing double quote');
  });

  it('refuses an empty file', () => {
    expect(fail(() => parse(''))).toMatchObject({ code: 'E_VALIDATION', line: 1 });
  });

  it('reports a missing file as E_FILE', async () => {
    await expect(readSubscriberCsv(`${FIXTURES}missing.csv`)).rejects.toMatchObject({ code: 'E_FILE', message: textContaining('no such file') });
  });
});

describe('formula escapes of an export', () => {
  it("removes the ' before =, +, -, @, tab and CR, and keeps other apostrophes", () => {
    expect(['=1+2', '+1', '-1', '@SUM(A1)', '\tx', '\rx'].map((v) => unescapeFormula(`'${v}`))).toEqual(['=1+2', '+1', '-1', '@SUM(A1)', '\tx', '\rx']);
    expect(unescapeFormula("O'Neil")).toBe("O'Neil");
    expect(unescapeFormula("'quoted'")).toBe("'quoted'");
    expect(parse("email,name\n'+ann@example.com,'=1+2\n").rows[0]).toMatchObject({ email: '+ann@example.com', name: '=1+2' });
  });
});
