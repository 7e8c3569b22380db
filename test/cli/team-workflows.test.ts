// Where the team's workflows point: the tool's repository is package.json's `repository` (the
// one place it is written), and the ref is the release's commit from release.json (written
// by the release workflow into the published package), else the major tag.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { githubRepository, toolWorkflows } from '../../src/cli/team-workflows.js';

const SHA = 'a3f1c0de5b7e9a2c4d6f8b0e1c3a5d7f9b2e4c6a';

describe("the tool's workflows as a team's workflow calls them", () => {
  let dir = '';
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const packageRoot = (pkg: object, release?: object): string => {
    dir = mkdtempSync(join(tmpdir(), 'team-workflows-'));
    writeFileSync(join(dir, 'package.json'), JSON.stringify(pkg));
    if (release) writeFileSync(join(dir, 'release.json'), JSON.stringify(release));
    return dir;
  };

  it('reads the repository from package.json in the forms npm accepts', () => {
    for (const form of ['git+https://github.com/acme/tool.git', 'https://github.com/acme/tool', 'git@github.com:acme/tool.git', 'github:acme/tool', 'acme/tool', { type: 'git', url: 'git+https://github.com/acme/tool.git' }]) {
      expect(githubRepository(form), JSON.stringify(form)).toBe('acme/tool');
    }
    expect(githubRepository('https://gitlab.com/acme/tool.git')).toBeUndefined();
    expect(githubRepository(undefined)).toBeUndefined();
  });

  it("a published release: the commit of release.json, its version in the comment", () => {
    expect(toolWorkflows(packageRoot({ version: '1.4.2', repository: 'github:acme/tool' }, { version: '1.4.2', commit: SHA }))).toEqual({ repository: 'acme/tool', ref: SHA, version: '1.4.2' });
  });

  it('no release (a local build), or a release.json of another version or no commit: the major tag', () => {
    expect(toolWorkflows(packageRoot({ version: '1.4.2', repository: 'github:acme/tool' }))).toEqual({ repository: 'acme/tool', ref: 'v1' });
    rmSync(dir, { recursive: true });
    expect(toolWorkflows(packageRoot({ version: '1.4.3', repository: 'github:acme/tool' }, { version: '1.4.2', commit: SHA })).ref).toBe('v1');
    rmSync(dir, { recursive: true });
    expect(toolWorkflows(packageRoot({ version: '1.4.2', repository: 'github:acme/tool' }, { version: '1.4.2', commit: 'main' })).ref).toBe('v1');
  });

  it('a package.json without a GitHub repository is a defect, named', () => {
    expect(() => toolWorkflows(packageRoot({ version: '1.0.0' }))).toThrow(/"repository" names no GitHub repository/);
  });

  it("this package names changelog-sync's repository", () => {
    expect(toolWorkflows(join(import.meta.dirname, '../..')).repository).toBe('changelog-sync/changelog-sync');
  });
});
