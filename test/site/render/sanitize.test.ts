// The build-time sanitiser (hostile input): neither remote content nor a local
// file can put script into the site. Outputs are parsed with parse5 and walked as a DOM,
// the way a browser would read them.
import { describe, expect, it } from 'vitest';
import { renderBody, sanitizeBody } from '../../../src/site/render/sanitize.js';
import { elementsOf, scriptVectors } from '../../helpers/browser/html.js';

/** Classic script vectors, as HTML (remote content, or HTML in a local Markdown file). */
const HTML_VECTORS = [
  '<script>alert(1)</script>',
  '<SCRIPT SRC=https://evil.example/x.js></SCRIPT>',
  '<img src=x onerror=alert(1)>',
  '<img src="x" ONERROR="alert(1)">',
  '<body onload=alert(1)>',
  '<p onclick="alert(1)" onmouseover="alert(2)">text</p>',
  '<details open ontoggle=alert(1)><summary>s</summary></details>',
  '<a href="javascript:alert(1)">x</a>',
  '<a href="JaVaScRiPt:alert(1)">x</a>',
  '<a href="  javascript:alert(1)">x</a>',
  '<a href="java&#x09;script:alert(1)">x</a>',
  '<a href="&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(1)">x</a>',
  '<a href="vbscript:msgbox(1)">x</a>',
  '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">x</a>',
  '<a href="//evil.example/">x</a>',
  '<iframe src="https://evil.example"></iframe>',
  '<iframe srcdoc="<script>alert(1)</script>"></iframe>',
  '<iframe src="javascript:alert(1)"></iframe>',
  '<object data="javascript:alert(1)"></object>',
  '<embed src="https://evil.example/x.swf">',
  '<form action="javascript:alert(1)"><button>go</button></form>',
  '<button formaction="javascript:alert(1)">x</button>',
  '<input type="image" src="x" onerror="alert(1)">',
  '<input type="text" autofocus onfocus="alert(1)">',
  '<svg onload=alert(1)></svg>',
  '<svg><script>alert(1)</script></svg>',
  '<svg><a xlink:href="javascript:alert(1)"><text>x</text></a></svg>',
  '<svg><animate attributeName="href" values="javascript:alert(1)"/></svg>',
  '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>',
  '<math href="javascript:alert(1)">x</math>',
  '<noscript><p title="</noscript><img src=x onerror=alert(1)>"></noscript>',
  '<template><script>alert(1)</script></template>',
  '<base href="javascript:alert(1)//">',
  '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
  '<link rel="stylesheet" href="javascript:alert(1)">',
  '<style>@import "javascript:alert(1)";</style>',
  '<div style="background:url(javascript:alert(1))">x</div>',
  '<img src="data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+">',
  '<img srcset="data:image/svg+xml;base64,PHN2Zz4= 1x">',
  '<video poster="javascript:alert(1)" src="x"></video>',
  '<audio src="javascript:alert(1)"></audio>',
  '<a href="https://ok.example" target="_blank" rel="opener">x</a>',
  '<!--<img src=x onerror=alert(1)>-->',
  '<![CDATA[<script>alert(1)</script>]]>',
  '<scr<script>ipt>alert(1)</scr</script>ipt>',
  '<<script>alert(1);//<</script>',
  '<textarea><script>alert(1)</script></textarea>',
  '<select><option><script>alert(1)</script></option></select>',
];

/** Script vectors written as Markdown (a writer's file, or turndown's output of remote HTML). */
const MARKDOWN_VECTORS = [
  '[x](javascript:alert(1))',
  '[x](JAVASCRIPT:alert(1))',
  '[x](<javascript:alert(1)>)',
  '![x](javascript:alert(1))',
  '<javascript:alert(1)>',
  '[x][r]\n\n[r]: javascript:alert(1)',
  '[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
  'text <img src=x onerror=alert(1)> more',
  '```html\n<script>alert(1)</script>\n```',
  '<div>\n<script>alert(1)</script>\n</div>',
  '- [ ] task <input type="checkbox" onclick="alert(1)">',
];

describe('sanitizeBody', () => {
  it('the checker sees script: it is not blind', () => {
    expect(scriptVectors('<script>x</script><a href="javascript:x">a</a><p onclick="x">p</p><iframe></iframe>')).toEqual(
      expect.arrayContaining(['<script>', 'a[href=javascript:x]', 'p[onclick]', '<iframe>']),
    );
    expect(scriptVectors('<p><a href="https://x.example">ok</a> <img src="data:image/png;base64,AAAA"></p>')).toEqual([]);
  });

  it.each(HTML_VECTORS)('removes script from HTML: %s', (vector) => {
    const out = sanitizeBody(`<p>before</p>${vector}<p>after</p>`);
    expect(scriptVectors(out)).toEqual([]);
    expect(out).toContain('<p>before</p>');
  });

  it.each(MARKDOWN_VECTORS)('removes script from Markdown: %s', (vector) => {
    expect(scriptVectors(renderBody(`Intro.\n\n${vector}\n\nOutro.`))).toEqual([]);
  });

  it('keeps what entries need: formatting, safe links, images, code with language, tables, details, task lists', () => {
    const html = renderBody(
      [
        '## Heading',
        '',
        'Some **bold**, _em_, ~~gone~~, `code`, [a link](https://example.com/a?b=1 "T"), [mail](mailto:x@example.com), [rel](/entries/x/).',
        '',
        '![alt](https://example.com/i.png) ![inline](data:image/png;base64,iVBORw0KGgo=)',
        '',
        '```ts',
        'const x = 1;',
        '```',
        '',
        '| a | b |',
        '|---|:-:|',
        '| 1 | 2 |',
        '',
        '- [x] done',
        '- [ ] todo',
        '',
        '<details><summary>More</summary>Hidden</details>',
        '',
        'H<sub>2</sub>O <kbd>Ctrl</kbd>',
      ].join('\n'),
    );
    const tags = new Set(elementsOf(html).map((e) => e.tagName));
    for (const t of ['h2', 'strong', 'em', 'del', 'code', 'a', 'img', 'pre', 'table', 'th', 'td', 'input', 'details', 'summary', 'sub', 'kbd']) expect(tags, t).toContain(t);
    expect(html).toContain('href="https://example.com/a?b=1"');
    expect(html).toContain('href="mailto:x@example.com"');
    expect(html).toContain('href="/entries/x/"');
    expect(html).toContain('src="data:image/png;base64,iVBORw0KGgo="');
    expect(html).toContain('class="hljs language-ts"');
    expect(scriptVectors(html)).toEqual([]);
  });

  it('drops unknown tags but keeps their text', () => {
    expect(sanitizeBody('<tabs><tab title="A">Inside</tab></tabs>')).toBe('Inside');
  });
});

describe('tables in a body (table-scroll.ts)', () => {
  it('each table, nested ones too, is wrapped in a focusable box that scrolls; text that reads "<table" is not', () => {
    const html = renderBody('| a | b |\n|---|---|\n| 1 | 2 |\n\n<table><tr><td><table><tr><td>in</td></tr></table></td></tr></table>\n\nWrite \\<table> in text.\n');
    expect(html.match(/<div class="table-scroll" tabindex="0"><table>/g)).toHaveLength(3);
    expect(html.match(/<\/table><\/div>/g)).toHaveLength(3);
    expect(html).toContain('Write &lt;table&gt; in text.');
  });

  it('a body cannot write the box itself: its class and tabindex are removed', () => {
    expect(renderBody('<div class="table-scroll" tabindex="0">x</div>\n').trim()).toBe('<div>x</div>');
  });
});
