// The package as an outside project has it: tools/package.mjs builds package/, npm pack
// makes the tarball, and an empty temporary project installs it (offline: the package has
// no dependencies). Each test file calls installPackage() for a project of its own.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const run = promisify(execFile);
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** { tmp, project, pack (npm pack's JSON of the tarball), remove() }. */
export async function installPackage() {
  await run(process.execPath, [`${ROOT}tools/package.mjs`], { cwd: ROOT });
  const tmp = await mkdtemp(join(tmpdir(), 'tfp-package-'));
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', tmp, `${ROOT}package`], { cwd: tmp, maxBuffer: 64 << 20 });
  const [pack] = JSON.parse(stdout);
  const project = join(tmp, 'project');
  await mkdir(project);
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'outside-project', private: true, type: 'module' }));
  await run('npm', ['install', '--offline', '--no-audit', '--no-fund', join(tmp, pack.filename)], { cwd: project });
  return { tmp, project, pack, remove: () => rm(tmp, { recursive: true, force: true }) };
}
