// escapeHtml against the Nunjucks that renders the site's templates: Eleventy's own
// (@11ty/nunjucks, a dependency of @11ty/eleventy, not of ours), loaded from where Eleventy
// loads it. It ships no types.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { escapeHtml } from '../../src/core/html-escape.js';

interface Nunjucks {
  Environment: new (loader: null, options: { autoescape: boolean }) => { renderString(template: string, context: object): string };
}
const require = createRequire(import.meta.url);
const nunjucks = createRequire(require.resolve('@11ty/eleventy'))('nunjucks') as Nunjucks;

describe('escapeHtml', () => {
  it("escapes exactly as the templates' autoescape does", () => {
    const env = new nunjucks.Environment(null, { autoescape: true });
    for (const s of ['plain', `Tom & "Jerry" <b>'s</b> \\n`, 'a&amp;b', '', '€ ✓ עברית', '<script>alert(1)</script>']) {
      expect(escapeHtml(s), s).toBe(env.renderString('{{ s }}', { s }));
    }
  });
});
