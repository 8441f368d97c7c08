import type { DeviceLayer } from '../paths/layer';
import { disposeLayer, uploadLayer } from '../paths/layer';
import type { Runtime } from '../devices/runtime';
import type { WeightSource } from '../core/weights/layer';
import { testRuntime } from './runtime';

/**
 * A describe block's runtime on `device` and `source`'s layer (every head, `tokens` per piece):
 * uploaded before its tests, disposed after. Read rt and layer inside tests (they are set in beforeAll).
 */
export function layerFixture(
  device: 'wasm' | 'cpu',
  source: WeightSource,
  tokens = 16,
): { readonly rt: Runtime; readonly layer: DeviceLayer } {
  const f = {} as { rt: Runtime; layer: DeviceLayer };
  beforeAll(async () => {
    f.rt = await testRuntime(device);
    f.layer = uploadLayer(f.rt, source, { start: 0, count: source.config.num_attention_heads }, tokens);
  });
  afterAll(() => disposeLayer(f.layer));
  return f;
}
