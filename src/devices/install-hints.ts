/**
 * The GPU stack is not installed with mla-diff (optional peer dependencies: a CPU user downloads no
 * Dawn, no libtensorflow): the exact packages each device needs, for the message that asks for them.
 */
export const GPU_PACKAGES = {
  webgpu: ['webgpu@0.6.2', '@tensorflow/tfjs-backend-webgpu@4.22.0'],
  tensorflow: ['@tensorflow/tfjs-node-gpu@4.22.0'],
} as const;
export type GpuDevice = keyof typeof GPU_PACKAGES;

/** `npm install …` of the packages a device needs, pinned to the versions mla-diff is tested with. */
export const installCommand = (device: GpuDevice): string => `npm install ${GPU_PACKAGES[device].join(' ')}`;

/** The packages of a device that node cannot resolve from here (none: the device's packages are installed). */
export function missingPackages(device: GpuDevice, resolve: (name: string) => string = require.resolve): string[] {
  return GPU_PACKAGES[device]
    .map((spec) => spec.slice(0, spec.lastIndexOf('@')))
    .filter((name) => {
      try {
        resolve(name);
        return false;
      } catch {
        return true;
      }
    });
}
