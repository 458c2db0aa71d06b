/**
 * How the viewer draws its stacks: with WebGL on a real GPU, on the CPU (Cornerstone's
 * 2D-canvas path: the same VOI LUT picture, measurements and tools) where WebGL is a
 * software rasterizer (SwiftShader, llvmpipe: no GPU, as in a remote desktop, a virtual
 * machine or headless Chromium) or missing. There every WebGL frame is rendered on the
 * CPU anyway and read back into the page, and the first one also compiles the shaders:
 * about ten times the 2D path's time for a 512x512 slice. A page may force either way
 * (localStorage RENDER_OVERRIDE_KEY = 'gpu' | 'cpu': support, and the browser test that
 * counts WebGL contexts). Pure: no Cornerstone here.
 */
export const RENDER_OVERRIDE_KEY = 'rcloud.viewer.render';

export type RenderBackend = 'gpu' | 'cpu';

export interface GlCapabilities {
  webgl: boolean;
  softwareRasterizer: boolean;
}

export function chooseBackend(capabilities: GlCapabilities, override?: string | null): RenderBackend {
  if (!capabilities.webgl) return 'cpu';
  if (override === 'gpu' || override === 'cpu') return override;
  return capabilities.softwareRasterizer ? 'cpu' : 'gpu';
}
