// Eleventy's Nunjucks (@11ty/nunjucks, installed as `nunjucks`), which renders the site's templates; it ships no types.
// @ts-expect-error TS7016: no declaration file
import nunjucks from 'nunjucks';
import { describe, expect, it } from 'vitest';
import { escapeHtml } from '../src/html-escape.js';

describe('escapeHtml', () => {
  it("escapes exactly as the templates' autoescape does", () => {
    const env = new nunjucks.Environment(null, { autoescape: true }) as { renderString(t: string, ctx: object): string };
    for (const s of ['plain', `Tom & "Jerry" <b>'s</b> \\n`, 'a&amp;b', '', '€ ✓ עברית', '<script>alert(1)</script>']) {
      expect(escapeHtml(s), s).toBe(env.renderString('{{ s }}', { s }));
    }
  });
});
