/**
 * janode (Meetecho's Janus client), loaded and typed for ./janus.ts. It ships ES modules
 * only while the server is compiled to CommonJS (tsx, esbuild's bundle, ts-jest), where
 * TypeScript turns import() into require(): a native import() keeps it an ES module.
 * Jest's sandbox has no native import() unless run with --experimental-vm-modules (as
 * `npm test` does); a plain `npx jest` requires it instead (jest.config.js makes it
 * CommonJS). Only the part of janode's API the video room uses is declared here.
 */

export interface JanodeEmitter {
  on(event: string, listener: (data: any) => void): unknown;
  once(event: string, listener: (data: any) => void): unknown;
}

export interface JanodeHandle extends JanodeEmitter {
  detach(): Promise<void>;
  trickle(candidate: Record<string, unknown> | null): Promise<void>;
}

export interface Publisher {
  feed: number;
  display?: string;
  streams?: unknown[];
}

export interface VideoRoomHandle extends JanodeHandle {
  create(params: { room: number; description?: string; max_publishers?: number; permanent?: boolean; notify_joining?: boolean }): Promise<unknown>;
  listParticipants(params: { room: number }): Promise<{ participants: Array<{ feed: number; display?: string; publisher: boolean }> }>;
  joinPublisher(params: { room: number; display?: string }): Promise<{ feed: number; private_id: number; publishers: Publisher[] }>;
  configure(params: { jsep: unknown; audio?: boolean; video?: boolean }): Promise<{ jsep?: unknown }>;
  joinSubscriber(params: { room: number; streams: Array<{ feed: number }>; private_id?: number }): Promise<{ jsep?: unknown }>;
  start(params: { jsep: unknown }): Promise<unknown>;
}

export interface JanodeSession extends JanodeEmitter {
  attach(plugin: unknown): Promise<any>;
  destroy(): Promise<void>;
}

export interface JanodeConnection extends JanodeEmitter {
  create(keepAliveSeconds?: number): Promise<JanodeSession>;
  close(): Promise<void>;
}

export interface Janode {
  connect(config: { address: { url: string; apisecret?: string }; max_retries?: number; retry_time_secs?: number; is_admin?: boolean }): Promise<JanodeConnection>;
  Logger: { setLevel(level: string): string };
  EVENT: Record<'CONNECTION_CLOSED' | 'CONNECTION_ERROR' | 'SESSION_DESTROYED' | 'HANDLE_DETACHED' | 'HANDLE_HANGUP' | 'HANDLE_TRICKLE', string>;
}

export interface VideoRoomPlugin {
  EVENT: Record<'VIDEOROOM_PUB_LIST' | 'VIDEOROOM_UNPUBLISHED' | 'VIDEOROOM_LEAVING' | 'VIDEOROOM_KICKED' | 'VIDEOROOM_DESTROYED', string>;
}

// `import()` in a `new Function`, so that no compiler rewrites it into require().
const importEsm = new Function('specifier', 'return import(specifier)') as (specifier: string) => Promise<{ default: unknown }>;

async function load(specifier: string): Promise<unknown> {
  // Under jest, Node's own require (Node 20.19+ requires ES modules), outside jest's
  // sandbox: an import() there went through the sandbox's loader, which in CI refused
  // with "Test environment has been torn down" when the Janus tests ran after other files
  // in the same worker.
  if (process.env.JEST_WORKER_ID) {
    // process.getBuiltinModule: Node's own module system (jest patches what `require('node:module')` gives).
    const nodeModule = (process as unknown as { getBuiltinModule(id: string): typeof import('node:module') }).getBuiltinModule('node:module');
    return (nodeModule.createRequire(__filename)(specifier) as { default: unknown }).default;
  }
  try {
    return (await importEsm(specifier)).default;
  } catch (e) {
    if (!String((e as { code?: string }).code).startsWith('ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING')) throw e;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(specifier).default;
  }
}

let loaded: Promise<{ janode: Janode; videoRoom: VideoRoomPlugin }> | undefined;

export function loadJanode(): Promise<{ janode: Janode; videoRoom: VideoRoomPlugin }> {
  loaded ??= (async () => {
    const janode = (await load('janode')) as Janode;
    // Its own logger writes to stdout; ./janus.ts logs what matters through the server's log.
    janode.Logger.setLevel('none');
    return { janode, videoRoom: (await load('janode/plugins/videoroom')) as VideoRoomPlugin };
  })();
  return loaded;
}
