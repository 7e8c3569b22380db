// The preview's problem banner: each kind under its own heading, counted by file, and
// nothing from a file name, message or hint reaching the page unescaped.
import { describe, expect, it } from 'vitest';
import { problemBanner, refusesRebuild, type PageProblem } from '../../../src/site/render/problem-banner.js';

describe('problemBanner', () => {
  it('heads each kind by what it means for the site, files counted once, in a fixed order', () => {
    const problems: PageProblem[] = [
      { kind: 'tag', file: 'entries/a.md', line: 4, message: 'tags: "Improvment" is not a known tag', hint: 'write `Improvement`' },
      { kind: 'content', file: 'entries/b.md', line: 7, message: 'the body is empty' },
      { kind: 'content', file: 'entries/b.md', line: 8, message: 'a template line' },
      { kind: 'outside', file: 'content/images/leak.png', message: 'a symbolic link that resolves outside the project' },
    ];
    const banner = problemBanner(problems);
    expect(banner).toContain('<strong>1 link out of the project</strong> (the site is not rebuilt until it is removed)');
    expect(banner).toContain('<strong>1 new entry that check and push refuse as written</strong>');
    expect(banner).toContain('<strong>1 entry file has a tag that looks misspelt</strong> (it gets a tag page of its own)');
    expect(banner).not.toContain('cannot be read');
    expect(banner.indexOf('out of the project')).toBeLessThan(banner.indexOf('refuse as written'));
    expect(banner.indexOf('refuse as written')).toBeLessThan(banner.indexOf('looks misspelt'));
    expect(banner).toContain('<code>entries/a.md:4</code> tags: &quot;Improvment&quot; is not a known tag (fix: write `Improvement`)');
    expect(problems.filter(refusesRebuild)).toEqual([problems[3]]);
  });

  it('escapes file names, messages and hints', () => {
    const banner = problemBanner([{ kind: 'unreadable', file: 'entries/<b>.md', message: 'bad <script>', hint: '"quote" & <i>' }]);
    expect(banner).toContain('<strong>1 entry file cannot be read</strong>');
    expect(banner).toContain('<code>entries/&lt;b&gt;.md</code> bad &lt;script&gt; (fix: &quot;quote&quot; &amp; &lt;i&gt;)');
    expect(banner).not.toMatch(/<(?:b|i|script)>/);
  });
});
