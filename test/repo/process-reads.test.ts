// The working directory and the environment are passed in (docs/architecture.md "Layers"):
// src/ reads the process's `process.cwd()` and `process.env` only at its entries, the CLI's
// (src/cli.ts) and the library's (src/index.ts), and hands them down (Config.cwd,
// Config.env, the reporter's); nothing in src/ changes the process's working directory, and
// only the entries write its environment. The few other reads are listed below, each with
// its reason. Read with TypeScript's own parser: a `process.env` in a comment or a string
// is not one.
import { readdir, readFile } from 'node:fs/promises';
import { join, posix, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The entries: where the process's working directory and environment are read and handed down. */
const ENTRIES = ['src/cli.ts', 'src/index.ts'];

/** Reads allowed outside the entries: file, what it reads, and why it cannot be handed down. */
const ALLOWED: ReadonlyArray<{ file: string; use: Use['kind']; why: string }> = [
  {
    file: 'src/core/failpoint.ts',
    use: 'env read',
    why: 'failpoints are armed per process by CHANGELOG_FAILPOINT (the crash tests start the CLI with it) and reached from deep code and worker threads that get no options; they are no setting',
  },
  {
    file: 'src/site/pipeline/plugin.ts',
    use: 'env read',
    why: "under plain Eleventy (`npx @11ty/eleventy`, the project's .eleventy.js) the plugin is the entry: the project is Eleventy's working directory and environment",
  },
  { file: 'src/site/pipeline/plugin.ts', use: 'cwd read', why: 'as above: plain Eleventy runs in the project' },
];

/** One use of the process's working directory or environment. */
interface Use {
  file: string;
  line: number;
  kind: 'cwd read' | 'chdir' | 'env read' | 'env write';
  text: string;
}

/** `process.env` (or `globalThis.process.env`), the expression itself. */
function isProcessEnv(node: ts.Node): boolean {
  return ts.isPropertyAccessExpression(node) && node.name.text === 'env' && isProcess(node.expression);
}

function isProcess(node: ts.Expression): boolean {
  if (ts.isIdentifier(node)) return node.text === 'process';
  return ts.isPropertyAccessExpression(node) && node.name.text === 'process' && ts.isIdentifier(node.expression) && node.expression.text === 'globalThis';
}

const ASSIGNMENTS = new Set([
  ts.SyntaxKind.EqualsToken,
  ts.SyntaxKind.QuestionQuestionEqualsToken,
  ts.SyntaxKind.BarBarEqualsToken,
  ts.SyntaxKind.AmpersandAmpersandEqualsToken,
  ts.SyntaxKind.PlusEqualsToken,
]);

/** Whether `node` (`process.env`, or one of its variables) is written: assigned, deleted, or the target of Object.assign / defineProperty. */
function isWritten(envNode: ts.Node): boolean {
  const member = envNode.parent && (ts.isPropertyAccessExpression(envNode.parent) || ts.isElementAccessExpression(envNode.parent)) && envNode.parent.expression === envNode ? envNode.parent : undefined;
  const target = member ?? envNode;
  const parent = target.parent;
  if (ts.isBinaryExpression(parent) && parent.left === target && ASSIGNMENTS.has(parent.operatorToken.kind)) return true;
  if (ts.isDeleteExpression(parent)) return true;
  if (ts.isCallExpression(parent) && parent.arguments[0] === envNode) {
    const callee = parent.expression.getText();
    return callee === 'Object.assign' || callee === 'Object.defineProperty' || callee === 'Reflect.set' || callee === 'Reflect.deleteProperty';
  }
  return false;
}

/** Every use of the process's working directory or environment in a source text. */
function processUses(file: string, text: string): Use[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const uses: Use[] = [];
  const add = (node: ts.Node, kind: Use['kind']) => uses.push({ file, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1, kind, text: node.parent.getText().slice(0, 120) });
  const visit = (node: ts.Node) => {
    if (isProcessEnv(node)) add(node, isWritten(node) ? 'env write' : 'env read');
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && isProcess(node.expression.expression)) {
      if (node.expression.name.text === 'cwd') add(node, 'cwd read');
      if (node.expression.name.text === 'chdir') add(node, 'chdir');
    }
    // `import { cwd, env, chdir } from 'node:process'` and `import process from 'node:process'` are the same reads under other names.
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier) && /^(node:)?process$/.test(node.moduleSpecifier.text)) {
      const bindings = node.importClause?.namedBindings;
      const names = bindings && ts.isNamedImports(bindings) ? bindings.elements.map((e) => (e.propertyName ?? e.name).text) : ['(the module)'];
      for (const name of names) if (['cwd', 'env', 'chdir', '(the module)'].includes(name)) add(node.moduleSpecifier, name === 'cwd' ? 'cwd read' : name === 'chdir' ? 'chdir' : 'env read');
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return uses;
}

async function sourceFiles(): Promise<string[]> {
  const names = await readdir(join(ROOT, 'src'), { recursive: true });
  return names
    .filter((n) => n.endsWith('.ts') && !n.endsWith('.d.ts'))
    .map((n) => posix.join('src', n.split(sep).join('/')))
    .sort();
}

async function usesInSrc(): Promise<Use[]> {
  const all: Use[] = [];
  for (const file of await sourceFiles()) all.push(...processUses(file, await readFile(join(ROOT, file), 'utf8')));
  return all;
}

const shown = (u: Use) => `${u.file}:${u.line}: ${u.kind}: ${u.text}`;
const allowed = (u: Use) => ENTRIES.includes(u.file) || ALLOWED.some((a) => a.file === u.file && a.use === u.kind);

describe('src/ reads the working directory and the environment only at its entries', () => {
  it('no process.cwd() and no process.chdir() outside src/cli.ts and src/index.ts (pass Config.cwd; show paths with it)', async () => {
    const found = (await usesInSrc()).filter((u) => (u.kind === 'cwd read' || u.kind === 'chdir') && !allowed(u));
    expect(found.map(shown)).toEqual([]);
  });

  it('no write of process.env outside src/cli.ts and src/index.ts', async () => {
    const found = (await usesInSrc()).filter((u) => u.kind === 'env write' && !ENTRIES.includes(u.file));
    expect(found.map(shown)).toEqual([]);
  });

  it('no read of process.env outside the entries but the listed ones (pass Config.env, or the env of the options)', async () => {
    const found = (await usesInSrc()).filter((u) => u.kind === 'env read' && !allowed(u));
    expect(found.map(shown)).toEqual([]);
  });

  it('every listed exception still reads what it is listed for, and says why', async () => {
    const uses = await usesInSrc();
    for (const a of ALLOWED) {
      expect(a.why.length, a.file).toBeGreaterThan(20);
      expect(uses.some((u) => u.file === a.file && u.kind === a.use), `${a.file} no longer has a ${a.use}: remove it from ALLOWED`).toBe(true);
    }
  });
});

describe('what the check counts as a use of the process', () => {
  const kinds = (text: string) => processUses('planted.ts', text).map((u) => u.kind);
  it.each([
    ['const here = process.cwd();', ['cwd read']],
    ["process.chdir('/tmp');", ['chdir']],
    ['const token = process.env.CHANGELOG_TOKEN;', ['env read']],
    ["const all = { ...process.env, GIT_TERMINAL_PROMPT: '0' };", ['env read']],
    ['function f(env = process.env) { return env; }', ['env read']],
    ["process.env.ELEVENTY_SKIP_ESM_RESOLVER ??= '1';", ['env write']],
    ["process.env['X'] = '1';", ['env write']],
    ['delete process.env.X;', ['env write']],
    ["Object.assign(process.env, { X: '1' });", ['env write']],
    ["globalThis.process.env.X = '1';", ['env write']],
    ["import { cwd, env } from 'node:process';", ['cwd read', 'env read']],
    ["import process from 'node:process';", ['env read']],
    ['// process.cwd() and process.env.X in a comment', []],
    ["const s = 'process.env.X';", []],
    ['const cwd = options.cwd; const env = config.env;', []],
  ] as const)('%s', (text, expected) => {
    expect(kinds(text)).toEqual(expected);
  });
});
