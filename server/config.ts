/**
 * Runtime configuration from the environment. Every variable the server reads is
 * here (and in the README's configuration table); nothing else reads process.env.
 */
import path from 'node:path';
import app from '../config/app.json';
import { ROOT } from './paths';
import { MIN_RETENTION_MONTHS } from './audit/trail';

export interface ServerConfig {
  port: number;
  host: string;
  databaseUrl?: string;
  dataDir: string;
  filesDir: string;
  /** fsync stored files and their folders (FILE_SYNC; on with PostgreSQL, off with PGlite): see LocalFileStorage. */
  fileSync: boolean;
  distDir: string;
  logLevel: string;
  logRequests: boolean;
  seedDemo: boolean;
  /**
   * The instant the demo data is generated back from (DEMO_NOW, ISO 8601); unset means
   * the moment of seeding. Tests fix it so that every run seeds the same rows.
   */
  demoNow?: Date;
  /** The business clock's shift from the wall clock (CLOCK_OFFSET_SECONDS): see lib/clock.ts. */
  clockOffsetSeconds: number;
  trustProxy: boolean;
  /** Serve the API documentation (/api/docs, its JSON only to holders of DOCS_PERMISSION); off by default in production. */
  apiDocs: boolean;
  /** Origins the built UI calls besides its own (API_BASE), allowed by the Content-Security-Policy. */
  connectOrigins: string[];
  appIds: string[];
  shutdownTimeoutMs: number;
  identity: IdentityConfig;
  dicom: DicomConfig;
  audit: AuditConfig;
  video: VideoConfig;
}

/** The video consultation room (server/video): ICE servers for browsers behind NAT, and the optional SFU. */
export interface VideoConfig {
  /** STUN servers (STUN_URLS, comma-separated "stun:host:port"). */
  stunUrls: string[];
  /** TURN servers (TURN_URLS, e.g. "turn:turn.example:3478?transport=udp"), used with TURN_SECRET. */
  turnUrls: string[];
  /** coturn's static-auth-secret (TURN_SECRET): credentials are derived from it per user and expire. */
  turnSecret?: string;
  /** How long TURN credentials last (TURN_TTL_SECONDS, default one day: longer than a consultation). */
  turnTtlSeconds: number;
  /** Janus's WebSocket API (JANUS_URL, e.g. ws://127.0.0.1:8188): its VideoRoom forwards the media (server/video/janus.ts) instead of the mesh. */
  janusUrl?: string;
  /** Janus's `api_secret` when it has one (JANUS_API_SECRET). */
  janusApiSecret?: string;
  /** Participants in a room through Janus (JANUS_ROOM_MAX, default 16): each receives every other's video. */
  janusRoomMax: number;
  /** How long a request to Janus may take before the participant is told VIDEO003 (JANUS_TIMEOUT_MS, default 10 s). */
  janusTimeoutMs: number;
}

export interface AuditConfig {
  /** Whole months of audit records kept (AUDIT_RETENTION_MONTHS); 0 keeps them all; never under MIN_RETENTION_MONTHS. */
  retentionMonths: number;
  /** How often the batched audit writer flushes (AUDIT_FLUSH_MS): at most this much is lost in a crash. */
  flushMs: number;
}

export interface DicomConfig {
  /** The listener's AE title, the Called AE title modalities must use. */
  aeTitle: string;
  port: number;
  /** 0 turns the DICOM listener off (API-only instances behind a load balancer). */
  enabled: boolean;
  /** Regional send: the first retry's delay (SEND_RETRY_SECONDS), doubled for each further one. */
  sendRetrySeconds: number;
  /** Regional send: attempts before a send is failed (SEND_MAX_ATTEMPTS). */
  sendMaxAttempts: number;
}

export interface IdentityConfig {
  /** A session without remember-me ends after this long without a request. */
  sessionIdleMinutes: number;
  /** Remember-me ("7-day auto login") sessions last this long from login. */
  rememberMeDays: number;
  /** Sessions one user may hold at once; a new login past it revokes the oldest. 0: no limit. */
  maxSessionsPerUser: number;
  /** How long a resolved session is kept in process (identity/sessionCache.ts); 0 turns the cache off. */
  authCacheMs: number;
  /** Wrong passwords in a row that lock the account. */
  maxFailures: number;
  /** How long a lock lasts unless an administrator unlocks the user first. */
  lockMinutes: number;
  /** A password older than this must be changed at the next login; 0 turns expiry off. */
  passwordMaxAgeDays: number;
  smsProvider: 'log' | 'http';
  smsGatewayUrl?: string;
  smsGatewayKey?: string;
  smsMobileIntervalSeconds: number;
  smsMobileDaily: number;
  smsIpHourly: number;
  /** Production first start without demo data: the first administrator. */
  adminMobile?: string;
  adminPassword?: string;
}

/** Audit retention: 0 (keep all) or at least MIN_RETENTION_MONTHS; a shorter one stops the start rather than delete early. */
function retentionMonths(value: string | undefined): number {
  const months = Number(value || 12);
  if (!Number.isInteger(months) || months < 0 || (months > 0 && months < MIN_RETENTION_MONTHS)) {
    throw new Error(`AUDIT_RETENTION_MONTHS must be 0 (keep all) or at least ${MIN_RETENTION_MONTHS}, not ${value}`);
  }
  return months;
}

function bool(value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === '') return fallback;
  return !['0', 'false', 'no', 'off'].includes(value.toLowerCase());
}

/** An ISO 8601 instant; a value that is not one stops the start rather than seed from a wrong date. */
function instant(value: string | undefined): Date | undefined {
  if (!value) return undefined;
  const at = new Date(value);
  if (Number.isNaN(at.getTime())) throw new Error(`not an ISO 8601 instant: ${value}`);
  return at;
}

/** The origin of an absolute URL; nothing for a relative one (the page's own origin). */
function originOf(url: string | undefined): string[] {
  if (!url || !/^https?:\/\//.test(url)) return [];
  return [new URL(url).origin];
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const root = ROOT;
  const dataDir = path.resolve(env.DATA_DIR || path.join(root, 'data'));
  return {
    port: Number(env.PORT || 8000),
    host: env.HOST || '0.0.0.0',
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir,
    filesDir: path.join(dataDir, 'files'),
    // PGlite does not fsync its own log: a power cut loses its recent commits anyway, so
    // fsyncing files buys nothing there. With PostgreSQL the index is durable; files follow.
    fileSync: bool(env.FILE_SYNC, Boolean(env.DATABASE_URL)),
    distDir: path.resolve(env.DIST_DIR || path.join(root, 'dist')),
    logLevel: env.LOG_LEVEL || 'info',
    logRequests: bool(env.LOG_REQUESTS, false),
    seedDemo: bool(env.SEED_DEMO, true),
    demoNow: instant(env.DEMO_NOW),
    clockOffsetSeconds: Number(env.CLOCK_OFFSET_SECONDS || 0),
    trustProxy: bool(env.TRUST_PROXY, false),
    apiDocs: bool(env.API_DOCS, env.NODE_ENV !== 'production'),
    connectOrigins: originOf(env.API_BASE),
    appIds: env.APP_IDS ? env.APP_IDS.split(',').map((s) => s.trim()).filter(Boolean) : app.appIds,
    shutdownTimeoutMs: Number(env.SHUTDOWN_TIMEOUT_MS || 4500),
    identity: {
      sessionIdleMinutes: Number(env.SESSION_IDLE_MINUTES || 30),
      rememberMeDays: Number(env.REMEMBER_ME_DAYS || 7),
      maxSessionsPerUser: Number(env.SESSION_MAX_PER_USER ?? 5),
      authCacheMs: Number(env.AUTH_CACHE_MS ?? 1000),
      maxFailures: Number(env.LOGIN_MAX_FAILURES || 4),
      lockMinutes: Number(env.LOGIN_LOCK_MINUTES || 60),
      passwordMaxAgeDays: Number(env.PASSWORD_MAX_AGE_DAYS ?? 180),
      smsProvider: env.SMS_PROVIDER === 'http' ? 'http' : 'log',
      smsGatewayUrl: env.SMS_GATEWAY_URL || undefined,
      smsGatewayKey: env.SMS_GATEWAY_KEY || undefined,
      smsMobileIntervalSeconds: Number(env.SMS_MOBILE_INTERVAL_SECONDS || 60),
      smsMobileDaily: Number(env.SMS_MOBILE_DAILY || 10),
      smsIpHourly: Number(env.SMS_IP_HOURLY || 20),
      adminMobile: env.ADMIN_MOBILE || undefined,
      adminPassword: env.ADMIN_PASSWORD || undefined,
    },
    dicom: {
      aeTitle: (env.DICOM_AE || 'RCLOUD').trim(),
      port: Number(env.DICOM_PORT ?? 11112),
      enabled: Number(env.DICOM_PORT ?? 11112) !== 0,
      sendRetrySeconds: Math.max(0.01, Number(env.SEND_RETRY_SECONDS || 30)),
      sendMaxAttempts: Math.max(1, Math.floor(Number(env.SEND_MAX_ATTEMPTS || 5))),
    },
    audit: {
      retentionMonths: retentionMonths(env.AUDIT_RETENTION_MONTHS),
      flushMs: Math.max(50, Number(env.AUDIT_FLUSH_MS || 1000)),
    },
    video: {
      stunUrls: list(env.STUN_URLS),
      turnUrls: list(env.TURN_URLS),
      turnSecret: env.TURN_SECRET || undefined,
      turnTtlSeconds: Math.max(60, Number(env.TURN_TTL_SECONDS || 86400)),
      janusUrl: env.JANUS_URL || undefined,
      janusApiSecret: env.JANUS_API_SECRET || undefined,
      janusRoomMax: Math.max(2, Math.floor(Number(env.JANUS_ROOM_MAX || 16))),
      janusTimeoutMs: Math.max(100, Number(env.JANUS_TIMEOUT_MS || 10_000)),
    },
  };
}

function list(value: string | undefined): string[] {
  return (value ?? '').split(',').map((s) => s.trim()).filter(Boolean);
}
