/**
 * Associations the node opens itself (PS3.8 as requester): a C-MOVE's sub-operations
 * to the destination AE, and the storage commitment result sent back to a modality.
 * Writes the protocol with pdu.ts; the peer's answers are read with its PduReader.
 * Touches the network only: what to send and to whom is the caller's.
 */
import net from 'node:net';
import { IMPLEMENTATION_CLASS_UID } from '../pacs/dicomFile';
import { associateRequest, messagePdus, parseCommand, PDU, PduReader, readAssociateAccept, type Command, type ProposedContext } from './pdu';

/** What this side accepts from the peer (responses are small). */
const OUR_MAX_PDU = 1 << 20;
/** How long a peer may take to answer the association and each request. */
const ANSWER_TIMEOUT_MS = 60_000;

export class AssociationError extends Error {}

export interface OpenOptions {
  host: string;
  port: number;
  callingAe: string;
  calledAe: string;
  contexts: ProposedContext[];
}

/** The abstract and transfer syntax of an accepted context. */
export interface AcceptedContext {
  id: number;
  abstractSyntax: string;
  transferSyntax: string;
}

/**
 * The requests one side of an association has sent and awaits the responses of, by
 * Message ID: an outbound association's, and the listener's own (a C-GET's C-STOREs,
 * a storage commitment report) on an association a peer opened.
 */
export class PendingRequests {
  private readonly waiting = new Map<number, (response: Command | undefined) => void>();
  private next = 1;

  messageId(): number {
    const id = this.next;
    this.next = (this.next % 0xffff) + 1;
    return id;
  }

  /** The response to `messageId`, or undefined when the association ends or the peer takes too long. */
  expect(messageId: number): Promise<Command | undefined> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.settle(messageId, undefined), ANSWER_TIMEOUT_MS);
      this.waiting.set(messageId, (response) => {
        clearTimeout(timer);
        resolve(response);
      });
    });
  }

  private settle(messageId: number, response: Command | undefined): boolean {
    const resolve = this.waiting.get(messageId);
    this.waiting.delete(messageId);
    resolve?.(response);
    return Boolean(resolve);
  }

  /** Hands a response to its request; false when none awaits it. */
  answer(response: Command): boolean {
    return response.respondsTo !== undefined && this.settle(response.respondsTo, response);
  }

  /** The association ended: every request still waiting gets undefined. */
  endAll(): void {
    for (const id of [...this.waiting.keys()]) this.settle(id, undefined);
  }
}

/** Writes a DIMSE message, waiting whenever the socket's buffer is full. */
export async function writeMessage(socket: net.Socket, contextId: number, command: Buffer, dataset: Iterable<Buffer> | undefined, maxPdu: number): Promise<void> {
  if (socket.destroyed) throw new AssociationError('connection closed');
  // The message is in memory already: queued whole and sent in one writev (a 512x512 slice is
  // 32 PDUs of dcmtk's default 16 KB, 32 system calls when written one by one), then the
  // next message waits until the socket has taken it.
  socket.cork();
  try {
    for (const pdu of messagePdus(contextId, command, dataset, maxPdu)) socket.write(pdu);
  } finally {
    socket.uncork();
  }
  if (socket.writableNeedDrain) {
    await new Promise<void>((resolve) => {
      const done = () => {
        socket.off('drain', done).off('close', done);
        resolve();
      };
      socket.on('drain', done).on('close', done);
    });
  }
}

/** Sends a request (its command built for the Message ID it gets) and resolves with the response, undefined when none came. */
export async function sendRequest(
  pending: PendingRequests,
  socket: net.Socket,
  maxPdu: number,
  contextId: number,
  command: (messageId: number) => Buffer,
  dataset?: Iterable<Buffer>,
): Promise<Command | undefined> {
  const messageId = pending.messageId();
  const answered = pending.expect(messageId);
  await writeMessage(socket, contextId, command(messageId), dataset, maxPdu);
  return answered;
}

/** Where a retrieve's C-STOREs go: the destination's association, or the requester's own (C-GET). */
export interface StoreTarget {
  contexts: AcceptedContext[];
  /** Sends the request whose command is built for its Message ID; the response, or undefined when none came. */
  request(contextId: number, command: (messageId: number) => Buffer, dataset?: Iterable<Buffer>): Promise<Command | undefined>;
}

/** One association to a peer: requests go out one at a time, each awaited. */
export class OutboundAssociation implements StoreTarget {
  private readonly pending = new PendingRequests();
  private commandParts: Buffer[] = [];
  private failed: Error | undefined;
  private onPdu: ((type: number, bytes: Buffer) => void) | undefined;
  readonly contexts: AcceptedContext[] = [];
  private peerMaxPdu = 0;

  private constructor(private readonly socket: net.Socket) {
    const reader = new PduReader(
      {
        pdu: (bytes, type) => this.onPdu?.(type, bytes),
        pdv: (_contextId, command, last, bytes, end) => {
          // A response's dataset (none of the responses awaited here carries one that matters) is skipped.
          if (!command) return;
          this.commandParts.push(Buffer.from(bytes));
          if (end && last) {
            const response = parseCommand(Buffer.concat(this.commandParts));
            this.commandParts = [];
            this.pending.answer(response);
          }
        },
      },
      OUR_MAX_PDU,
    );
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      try {
        reader.push(chunk);
      } catch (e) {
        this.fail(e as Error);
      }
    });
    socket.on('error', (e) => this.fail(e));
    socket.on('close', () => this.fail(new AssociationError('connection closed')));
  }

  private fail(e: Error): void {
    this.failed ??= e;
    this.pending.endAll();
    this.onPdu?.(-1, Buffer.alloc(0));
    this.socket.destroy();
  }

  /** Waits for the next non-data PDU (its type; -1 when the connection failed). */
  private nextPdu(): Promise<{ type: number; bytes: Buffer }> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.fail(new AssociationError('no answer from the peer')), ANSWER_TIMEOUT_MS);
      this.onPdu = (type, bytes) => {
        clearTimeout(timer);
        this.onPdu = undefined;
        resolve({ type, bytes });
      };
    });
  }

  /** Connects and negotiates; throws AssociationError when the peer cannot be reached or accepts no context. */
  static async open(opts: OpenOptions): Promise<OutboundAssociation> {
    const socket = net.connect({ host: opts.host, port: opts.port });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new AssociationError(`no connection to ${opts.host}:${opts.port}`));
      }, ANSWER_TIMEOUT_MS);
      socket.once('connect', () => {
        clearTimeout(timer);
        resolve();
      });
      socket.once('error', (e) => {
        clearTimeout(timer);
        reject(new AssociationError(`no connection to ${opts.host}:${opts.port}: ${e.message}`));
      });
    });
    const association = new OutboundAssociation(socket);
    const answer = association.nextPdu();
    socket.write(associateRequest(opts.callingAe, opts.calledAe, opts.contexts, OUR_MAX_PDU, IMPLEMENTATION_CLASS_UID));
    const { type, bytes } = await answer;
    if (type !== PDU.associateAc) {
      socket.destroy();
      throw new AssociationError(type === PDU.associateRj ? `association rejected by ${opts.calledAe}` : (association.failed?.message ?? `association refused by ${opts.calledAe}`));
    }
    const { accepted, maxPdu } = readAssociateAccept(bytes);
    association.peerMaxPdu = maxPdu;
    for (const [id, transferSyntax] of accepted) {
      const proposed = opts.contexts.find((c) => c.id === id);
      if (proposed) association.contexts.push({ id, abstractSyntax: proposed.abstractSyntax, transferSyntax });
    }
    return association;
  }

  async request(contextId: number, command: (messageId: number) => Buffer, dataset?: Iterable<Buffer>): Promise<Command | undefined> {
    return this.failed ? undefined : sendRequest(this.pending, this.socket, this.peerMaxPdu, contextId, command, dataset);
  }

  /** A-RELEASE-RQ, waiting for the release answer (or the connection's end). */
  async release(): Promise<void> {
    if (this.failed) return;
    const answer = this.nextPdu();
    this.socket.write(Buffer.from([PDU.releaseRq, 0, 0, 0, 0, 4, 0, 0, 0, 0]));
    await answer;
    this.socket.end();
  }

  abort(): void {
    if (!this.failed) this.socket.end(Buffer.from([PDU.abort, 0, 0, 0, 0, 4, 0, 0, 0, 0]));
    this.failed ??= new AssociationError('aborted');
  }
}
