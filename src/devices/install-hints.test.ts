import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GPU_PACKAGES, installCommand, missingPackages } from './install-hints';

const PKG = JSON.parse(readFileSync(join(__dirname, '../../package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};

describe('the GPU stack as optional peers', () => {
  it('names each package at the version package.json pins, an optional peer, never a dependency', () => {
    for (const spec of Object.values(GPU_PACKAGES).flat()) {
      const [name, version] = [spec.slice(0, spec.lastIndexOf('@')), spec.slice(spec.lastIndexOf('@') + 1)];
      expect([name, PKG.peerDependencies[name], PKG.peerDependenciesMeta[name]?.optional]).toEqual([name, version, true]);
      expect(PKG.dependencies[name]).toBeUndefined();
    }
  });

  it('gives the exact npm install for a device and the packages node cannot find', () => {
    expect(installCommand('webgpu')).toBe('npm install webgpu@0.6.2 @tensorflow/tfjs-backend-webgpu@4.22.0');
    expect(missingPackages('webgpu', (n) => n)).toEqual([]);
    const absent = (n: string): string => {
      if (n === 'webgpu') throw Object.assign(new Error(`Cannot find module '${n}'`), { code: 'MODULE_NOT_FOUND' });
      return n;
    };
    expect(missingPackages('webgpu', absent)).toEqual(['webgpu']);
  });
});
