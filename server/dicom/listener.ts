/**
 * The DICOM network listener (DIMSE over TCP): C-ECHO, C-STORE into the archive and
 * Modality Worklist C-FIND, for the modalities registered in /deviceList. The device a
 * calling AE title belongs to (looked up per association, so a new device works at
 * once) decides the hospital of what it stores and the worklist it sees; every
 * association attempt is logged in dicom_association_log.
 *
 * A C-STORE's dataset is streamed to a temp file behind its Part-10 meta header and
 * handed to the archive, which indexes it before Success is sent: an acknowledged
 * instance survives a crash. Touches the archive, the device, worklist and association
 * log tables, and nothing else.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import net from 'node:net';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { constants, Dataset, Implementation, log as dimseLog, responses, Scp, type association, type requests } from 'dcmjs-dimse';
import { InvalidDicomError, SopInstanceMismatchError } from '../pacs/archive';
import { IMPLEMENTATION_CLASS_UID, IMPLEMENTATION_VERSION, part10Prefix } from '../pacs/dicomFile';
import { MODALITY_WORKLIST_FIND, negotiate } from './negotiation';
import { findWorklist, WorklistQueryError } from './worklist';

type Association = association.Association;
type PresentationContext = association.PresentationContext;
const { CEchoResponse, CFindResponse, CStoreResponse } = responses;
const { RejectReason, RejectResult, RejectSource } = constants;

/** DIMSE status codes (PS3.7 C, PS3.4 B.2.3 and C.4.1.1.4). */
export const STATUS = {
  success: 0x0000,
  pending: 0xff00,
  sopClassNotSupported: 0x0122,
  outOfResources: 0xa700,
  /** "Cannot understand" (C-STORE) / "Unable to process" (C-FIND). */
  cannotUnderstand: 0xc000,
  /** Also "Cannot understand": the dataset is not the instance the command announced. */
  instanceMismatch: 0xc001,
} as const;

/** Why an association was refused, as logged in dicom_association_log.reason. */
export type RefusalReason = 'calledAeNotRecognized' | 'callingAeNotRecognized' | 'addressMismatch' | 'lookupFailed';

export interface DicomListenerOptions {
  aeTitle: string;
  /** 0 takes any free port (tests); the listener reports the one it got. */
  port: number;
  host?: string;
}

export interface DicomListener {
  port: number;
  /** Stops accepting, lets running stores and queries finish, then drops the connections. */
  close(): Promise<void>;
}

interface Sender {
  deviceId: number;
  hospitalId: number;
  aeTitle: string;
}

interface ListenerContext {
  app: FastifyInstance;
  aeTitle: string;
  log: FastifyBaseLogger;
  /** Stores and queries under way: closing waits for them before the database goes. */
  inflight: Set<Promise<unknown>>;
}

/**
 * dcmjs-dimse times out a connection without an association request after this long,
 * one idle between PDUs (a sender waiting for our reply is idle too), and a socket
 * without any traffic.
 */
const TIMEOUTS = { associationTimeout: 30_000, pduTimeout: 300_000, connectTimeout: 300_000 };
/** Written data a C-STORE may have waiting for the disk before the socket is paused. */
const SINK_BUFFER = 1 << 20;

/** IPv4 peers on a dual-stack socket appear as ::ffff:a.b.c.d. */
export function normalizeAddress(address: string | undefined | null): string {
  const a = (address ?? '').trim().toLowerCase();
  return a.startsWith('::ffff:') && a.includes('.') ? a.slice(7) : a;
}

const isLoopback = (a: string) => a === '::1' || a.startsWith('127.');

/** A device's registered IP against the peer's: loopback is one host whichever family the client used. */
function sameHost(registered: string, peer: string): boolean {
  const r = normalizeAddress(registered);
  return r === peer || (isLoopback(r) && isLoopback(peer));
}

/** The receiving end of one C-STORE: a temp file with the Part-10 prefix, then the dataset as it arrives. */
class StoreSink {
  readonly stream: fs.WriteStream;
  /** Resolves once the file is closed, with the write error if there was one. */
  readonly done: Promise<Error | undefined>;

  constructor(
    readonly path: string,
    readonly prefix: Buffer,
    readonly affectedSopInstanceUid: string,
  ) {
    this.stream = fs.createWriteStream(path, { highWaterMark: SINK_BUFFER });
    let failure: Error | undefined;
    this.done = new Promise((resolve) => {
      this.stream.on('error', (e) => (failure ??= e));
      this.stream.once('close', () => resolve(failure));
    });
    // Smaller than the buffer, so dcmjs-dimse's first write never waits for 'drain'
    // (it awaits only there, and fragments written meanwhile would overtake it).
    this.stream.write(prefix);
  }

  /** Drops an unfinished transfer. */
  async discard(): Promise<void> {
    this.stream.destroy();
    await this.done;
    await fsp.rm(this.path, { force: true });
  }
}

/** One association: dcmjs-dimse drives the protocol, this class answers it. */
class Connection extends Scp {
  private sender: Sender | undefined;
  private transfer: StoreSink | undefined;
  private closed = false;

  constructor(
    private readonly peer: net.Socket,
    private readonly ctx: ListenerContext,
  ) {
    super(peer, TIMEOUTS);
    // Small replies must not wait for Nagle: a modality sends the next instance only after ours.
    peer.setNoDelay(true);
    // Registered after dcmjs-dimse's own 'data' listener, which writes the PDUs of this
    // chunk to the sink synchronously: when the disk lags, stop reading the socket.
    peer.on('data', () => this.holdWhileDiskBehind());
    this.on('networkError', (e: Error) => {
      if (!this.closed) this.ctx.log.warn({ err: e, callingAe: this.sender?.aeTitle }, 'dicom connection error');
      peer.destroy();
    });
    peer.once('close', () => {
      this.closed = true;
      const sink = this.transfer;
      this.transfer = undefined;
      if (sink) this.track(sink.discard());
    });
  }

  private holdWhileDiskBehind(): void {
    const stream = this.transfer?.stream;
    if (!stream?.writableNeedDrain || this.peer.isPaused()) return;
    this.peer.pause();
    const resume = () => {
      stream.off('drain', resume);
      stream.off('close', resume);
      if (!this.peer.destroyed) this.peer.resume();
    };
    stream.on('drain', resume);
    stream.on('close', resume);
  }

  private track<T>(work: Promise<T>): Promise<T> {
    const entry = work.catch((e) => this.ctx.log.error({ err: e }, 'dicom listener task failed'));
    this.ctx.inflight.add(entry);
    void entry.finally(() => this.ctx.inflight.delete(entry));
    return work;
  }

  /** Ends the connection (listener closing). */
  shutdown(): void {
    this.peer.destroy();
  }

  override associationRequested(association: Association): void {
    void this.track(this.admit(association));
  }

  private async admit(association: Association): Promise<void> {
    const callingAe = association.getCallingAeTitle().trim();
    const calledAe = association.getCalledAeTitle().trim();
    const address = normalizeAddress(this.peer.remoteAddress);
    const { db } = this.ctx.app;
    let device: { id: number; hospital_id: number; ip: string | null } | undefined;
    let reason: RefusalReason | undefined;
    try {
      // Per association, not cached: a device added in /deviceList can send at once.
      device = (await db.query<{ id: number; hospital_id: number; ip: string | null }>('SELECT id, hospital_id, ip FROM device WHERE ae_title = $1', [callingAe])).rows[0];
    } catch (e) {
      this.ctx.log.error({ err: e, callingAe }, 'dicom association: device lookup failed');
      reason = 'lookupFailed';
    }
    if (!reason) {
      if (calledAe !== this.ctx.aeTitle) reason = 'calledAeNotRecognized';
      else if (!device) reason = 'callingAeNotRecognized';
      else if (device.ip?.trim() && !sameHost(device.ip, address)) reason = 'addressMismatch';
    }
    try {
      // Logged before the answer, so whoever reads the log after the peer's failure finds it.
      await db.query(
        `INSERT INTO dicom_association_log (calling_ae, called_ae, peer_address, accepted, reason, device_id, hospital_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [callingAe, calledAe, address || null, !reason, reason ?? null, device?.id ?? null, device?.hospital_id ?? null],
      );
    } catch (e) {
      this.ctx.log.error({ err: e, callingAe }, 'dicom association log failed');
    }
    if (this.closed) return;
    if (reason) {
      this.ctx.log.warn({ callingAe, calledAe, address, reason }, 'dicom association refused');
      if (reason === 'lookupFailed') this.sendAssociationReject(RejectResult.Transient, RejectSource.ServiceProviderPresentation, RejectReason.TemporaryCongestion);
      else {
        const why = reason === 'calledAeNotRecognized' ? RejectReason.CalledAeNotRecognized : RejectReason.CallingAeNotRecognized;
        this.sendAssociationReject(RejectResult.Permanent, RejectSource.ServiceUser, why);
      }
      this.peer.end();
      return;
    }
    this.sender = { deviceId: device!.id, hospitalId: device!.hospital_id, aeTitle: callingAe };
    const accepted = negotiate(association);
    this.ctx.log.debug({ callingAe, address, accepted }, 'dicom association accepted');
    this.sendAssociationAccept();
  }

  override associationReleaseRequested(): void {
    this.sendAssociationReleaseResponse();
  }

  override abort(): void {
    // The peer gave up; the socket closes next and an unfinished transfer is dropped then.
  }

  override cCancelRequest(): void {
    // Worklist answers are sent whole as soon as they are found; nothing to cancel.
  }

  override cEchoRequest(request: requests.CEchoRequest, callback: (response: responses.CEchoResponse) => void): void {
    const response = CEchoResponse.fromRequest(request);
    response.setStatus(STATUS.success);
    callback(response);
  }

  override cFindRequest(request: requests.CFindRequest, callback: (responses: responses.CFindResponse[]) => void): void {
    void this.track(this.find(request).then((answer) => !this.closed && callback(answer)));
  }

  private async find(request: requests.CFindRequest): Promise<responses.CFindResponse[]> {
    const query = request.getDataset();
    const respond = (status: number, dataset?: Record<string, unknown>, comment?: string) => {
      const response = CFindResponse.fromRequest(request);
      response.setAffectedSopClassUid(MODALITY_WORKLIST_FIND);
      response.setStatus(status);
      if (dataset) response.setDataset(new Dataset(dataset, query?.getTransferSyntaxUid()));
      if (comment) response.setErrorComment(comment.slice(0, 64));
      return response;
    };
    if (request.getAffectedSopClassUid() !== MODALITY_WORKLIST_FIND) return [respond(STATUS.sopClassNotSupported)];
    try {
      const matches = await findWorklist(this.ctx.app.db, this.sender!.hospitalId, query?.getElements() ?? {});
      return [...matches.map((m) => respond(STATUS.pending, m)), respond(STATUS.success)];
    } catch (e) {
      if (e instanceof WorklistQueryError) return [respond(STATUS.cannotUnderstand, undefined, e.message)];
      this.ctx.log.error({ err: e, callingAe: this.sender?.aeTitle }, 'dicom worklist query failed');
      return [respond(STATUS.outOfResources)];
    }
  }

  override createStoreWritableStream(context: PresentationContext, request: requests.CStoreRequest): fs.WriteStream {
    const sopInstanceUid = request.getAffectedSopInstanceUid();
    const prefix = part10Prefix(request.getAffectedSopClassUid(), sopInstanceUid, context.getAcceptedTransferSyntaxUid()!);
    this.transfer = new StoreSink(this.ctx.app.archive.tempPath(), prefix, sopInstanceUid);
    return this.transfer.stream;
  }

  override createDatasetFromStoreWritableStream(_writable: unknown, context: PresentationContext, callback: (dataset: Dataset) => void): void {
    // dcmjs-dimse has ended the stream; the request is handled once the file is closed.
    // The dataset stays on disk: cStoreRequest works from the file.
    const sink = this.transfer;
    const ready = sink ? sink.done : Promise.resolve(undefined);
    void ready.then(() => {
      if (!this.closed) callback(new Dataset({}, context.getAcceptedTransferSyntaxUid()));
    });
  }

  override cStoreRequest(request: requests.CStoreRequest, callback: (response: responses.CStoreResponse) => void): void {
    const sink = this.transfer;
    this.transfer = undefined;
    void this.track(this.store(request, sink).then((response) => !this.closed && callback(response)));
  }

  private async store(request: requests.CStoreRequest, sink: StoreSink | undefined): Promise<responses.CStoreResponse> {
    const response = CStoreResponse.fromRequest(request);
    const fail = async (status: number, comment: string) => {
      if (sink) await fsp.rm(sink.path, { force: true });
      response.setStatus(status);
      response.setErrorComment(comment.slice(0, 64));
      return response;
    };
    const sender = this.sender!;
    const affected = request.getAffectedSopInstanceUid();
    if (!sink) return fail(STATUS.outOfResources, 'no data received');
    const writeError = await sink.done;
    if (writeError) {
      this.ctx.log.error({ err: writeError, callingAe: sender.aeTitle, sopInstanceUid: affected }, 'dicom store: writing the received data failed');
      return fail(STATUS.outOfResources, 'cannot write the received data');
    }
    try {
      await this.ctx.app.archive.storeFile(sink.path, { hospitalId: sender.hospitalId, deviceId: sender.deviceId, sender: sender.aeTitle, expectSopInstanceUid: affected });
      response.setStatus(STATUS.success);
      return response;
    } catch (e) {
      // storeFile has removed the temp file whatever happened.
      if (e instanceof SopInstanceMismatchError) return fail(STATUS.instanceMismatch, e.message);
      if (e instanceof InvalidDicomError) {
        this.ctx.log.warn({ callingAe: sender.aeTitle, sopInstanceUid: affected, reason: e.message }, 'dicom store refused');
        response.setStatus(STATUS.cannotUnderstand);
        response.setErrorComment(e.message.slice(0, 64));
        return response;
      }
      this.ctx.log.error({ err: e, callingAe: sender.aeTitle, sopInstanceUid: affected }, 'dicom store failed');
      response.setStatus(STATUS.outOfResources);
      return response;
    }
  }
}

/** Starts listening; resolves once the port is bound. */
export async function startDicomListener(app: FastifyInstance, opts: DicomListenerOptions): Promise<DicomListener> {
  // dcmjs-dimse logs every PDU at trace level by default; its errors reach us as events.
  dimseLog.setLevel('silent');
  Implementation.setImplementationClassUid(IMPLEMENTATION_CLASS_UID);
  Implementation.setImplementationVersion(IMPLEMENTATION_VERSION);
  const ctx: ListenerContext = { app, aeTitle: opts.aeTitle.trim(), log: app.log.child({ service: 'dicom' }), inflight: new Set() };
  const connections = new Set<Connection>();
  let closing = false;
  const server = net.createServer((socket) => {
    if (closing) {
      socket.destroy();
      return;
    }
    const connection = new Connection(socket, ctx);
    connections.add(connection);
    socket.once('close', () => connections.delete(connection));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (e) => ctx.log.error({ err: e }, 'dicom listener error'));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    async close() {
      closing = true;
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      // Replies to what is under way still go out; then the connections are dropped (an
      // unfinished transfer was never acknowledged, so the sender will send it again).
      await Promise.allSettled([...ctx.inflight]);
      for (const connection of connections) connection.shutdown();
      await Promise.allSettled([...ctx.inflight]);
      await stopped;
    },
  };
}
