import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { annotation, escapeControl, escapeProperty, neutralizeCommands } from '../../../src/cli/output/github-actions.js';
import { Reporter } from '../../../src/cli/output/reporter.js';
import { tempDir } from '../../helpers/process/cli.js';

/** A writable that records what it gets, posing as a terminal when `tty`. */
function sink(tty: boolean): Writable & { isTTY: boolean; text: () => string; columns: number } {
  const chunks: string[] = [];
  const w = new Writable({
    write(chunk: Buffer, _enc, cb) {
      chunks.push(chunk.toString());
      cb();
    },
  }) as Writable & { isTTY: boolean; text: () => string; columns: number; cursorTo: () => boolean; clearLine: () => boolean; moveCursor: () => boolean };
  w.isTTY = tty;
  w.columns = 100;
  w.cursorTo = () => true;
  w.clearLine = () => true;
  w.moveCursor = () => true;
  w.text = () => chunks.join('');
  return w;
}

afterEach(() => vi.useRealTimers());

describe('progress', () => {
  function drive(reporter: Reporter): void {
    vi.useFakeTimers({ now: 0 });
    const bar = reporter.counter('push');
    bar.update(1, 10); // under a second: no bar yet
    vi.setSystemTime(1500);
    bar.update(3, 10);
    bar.stop();
  }

  it('shows a bar on a terminal once the work has lasted a second', () => {
    const err = sink(true);
    drive(new Reporter({ err, out: sink(false), env: {} }));
    expect(err.text()).toMatch(/push \[[^\]]*\] 3\/10/);
  });

  it('steps batch lines aside only while the bar is on screen', () => {
    vi.useFakeTimers({ now: 0 });
    const err = sink(true);
    const bar = new Reporter({ err, out: sink(false), env: {} }).counter('import');
    bar.update(1, 4);
    vi.setSystemTime(2000);
    bar.update(2, 4);
    bar.line('while the bar shows');
    bar.stop();
    bar.line('after the bar');
    expect(err.text()).not.toContain('while the bar shows');
    expect(err.text()).toContain('after the bar');
    const quietErr = sink(false);
    const quiet = new Reporter({ err: quietErr, out: sink(false), env: {} }).counter('import');
    quiet.update(1, 4);
    vi.setSystemTime(4000);
    quiet.update(4, 4);
    quiet.line('no terminal: no bar');
    expect(quietErr.text()).toContain('no terminal: no bar');
  });

  it('prints a batch line, but only at --verbose while the bar is on screen', () => {
    vi.useFakeTimers({ now: 0 });
    const err = sink(true);
    const bar = new Reporter({ err, out: sink(false), env: {} }).counter('import');
    bar.update(1, 4);
    bar.line('batch 1 of 4: done');
    vi.setSystemTime(2000);
    bar.update(2, 4);
    bar.line('batch 2 of 4: done');
    bar.stop();
    expect(err.text()).toContain('batch 1 of 4: done');
    expect(err.text()).not.toContain('batch 2 of 4: done');
  });

  it.each([
    ['not a terminal', { tty: false, env: {}, json: false }],
    ['in CI', { tty: true, env: { CI: 'true' }, json: false }],
    ['in GitHub Actions', { tty: true, env: { GITHUB_ACTIONS: 'true' }, json: false }],
    ['with --json', { tty: true, env: {}, json: true }],
  ])('shows none when %s', (_label, o) => {
    const err = sink(o.tty);
    drive(new Reporter({ err, out: sink(false), env: o.env, json: o.json }));
    expect(err.text()).toBe('');
  });
});

describe('GitHub Actions', () => {
  it('masks the token first, annotates problems, appends the summary', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const out = sink(false);
      const err = sink(false);
      const summary = join(dir, 'summary.md');
      const r = new Reporter({ out, err, secrets: ['s3cret-token'], env: { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary } });
      r.problem({ file: 'content/entries/a,b.md', line: 4, message: 'title: is required\nsecond line s3cret-token' });
      r.summary('### done');
      expect(out.text()).toBe('::add-mask::s3cret-token\n::error file=content/entries/a%2Cb.md,line=4::title: is required%0Asecond line ***\n');
      expect(err.text()).toContain('error: content/entries/a,b.md:4: title: is required');
      expect(err.text()).not.toContain('s3cret-token');
      expect(readFileSync(summary, 'utf8')).toBe('### done\n');
    } finally {
      await cleanup();
    }
  });

  it('puts workflow commands on stderr with --json so stdout stays one document', () => {
    const out = sink(false);
    const err = sink(false);
    const r = new Reporter({ out, err, json: true, secrets: ['s3cret-token'], env: { GITHUB_ACTIONS: 'true' } });
    r.problem({ file: 'x.md', message: 'bad' });
    r.result('', { ok: true });
    expect(JSON.parse(out.text())).toEqual({ ok: true });
    expect(err.text()).toContain('::add-mask::s3cret-token');
    expect(err.text()).toContain('::error file=x.md::bad');
  });

  it('escapes workflow command properties and data', () => {
    expect(escapeProperty('a:b,c%d')).toBe('a%3Ab%2Cc%25d');
    expect(annotation('warning', '50% done\r\n', { title: 'T: x' })).toBe('::warning title=T%3A x::50%25 done%0D%0A');
    expect(annotation('error', 'm', { file: 'a\n::error file=b,line=1::x.md', line: 3 })).toBe('::error file=a%0A%3A%3Aerror file=b%2Cline=1%3A%3Ax.md,line=3::m');
  });

  it('a problem on a terminal: the prefix may be coloured, the escape sequences of the data are shown', () => {
    const out = sink(false);
    const err = sink(true);
    new Reporter({ out, err, env: { FORCE_COLOR: '1' } }).problem({ file: 'x.md', message: 'bad \u001b[2J title' });
    expect(err.text()).not.toContain('\u001b[2J');
    // With or without colour (picocolors decides per process), the text reads the same.
    expect(stripVTControlCharacters(err.text())).toBe('error: x.md: bad \\x1b[2J title\n');
  });

  it('neutralises data lines: no line starts a command, ##[ nowhere, control characters shown', () => {
    expect(neutralizeCommands('ok\n::error::x\n \t::warning::y\nsee ##[error]z and ###[a')).toBe('ok\n%3A:error::x\n \t%3A:warning::y\nsee %23#[error]z and #%23#[a');
    expect(escapeControl('a\r\nb\rc\u001b[2Jd\u0085e\tf')).toBe('a\nb\\x0dc\\x1b[2Jd\\x85e\tf');
    const out = sink(false);
    const err = sink(false);
    const r = new Reporter({ out, err, env: { GITHUB_ACTIONS: 'true' } });
    r.info('Pulled from "Acme\n::error::pwned"');
    r.warn('w\r::notice::pwned');
    r.error('error E_X: e\n::add-mask::x');
    r.result('done\n::set-output name=a::b', {});
    r.workflowCommands(['::notice::the tool\'s own\n::error::cannot split it']);
    const lines = `${out.text()}${err.text()}`.split(/\r\n|\r|\n/).filter((l) => l.trimStart().startsWith('::'));
    expect(lines).toEqual(["::notice::the tool's own%0A::error::cannot split it"]);
    const json = sink(false);
    new Reporter({ out: json, err, json: true, env: { GITHUB_ACTIONS: 'true' } }).result('', { title: 'x ##[error]y' });
    expect(json.text()).not.toContain('##[');
    expect(JSON.parse(json.text())).toEqual({ title: 'x ##[error]y' });
  });
});
