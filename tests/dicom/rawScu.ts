/**
 * A DICOM association requester that writes the upper-layer protocol by hand, for the
 * listener's receive path: where dcmtk and dcmjs-dimse always cut a message the same
 * tidy way, this one decides how commands and datasets are split into presentation
 * data values, PDUs and socket writes, and can abort half-way.
 */
import net from 'node:net';
import { associateRequest, commandSet, encodePData, parseCommand, PDU, PduReader, readAssociateAccept, type Command, type ProposedContext } from '../../server/dicom/pdu';

export { storeRequest } from '../../server/dicom/pdu';

export const EXPLICIT_LE = '1.2.840.10008.1.2.1';
export const IMPLICIT_LE = '1.2.840.10008.1.2';
export const VERIFICATION = '1.2.840.10008.1.1';

export type { ProposedContext };

/** One presentation data value to send. */
export interface Pdv {
  contextId: number;
  command: boolean;
  last: boolean;
  value: Buffer;
}

/** Several values in one P-DATA-TF. */
export function pData(pdvs: Pdv[]): Buffer {
  // Each value as encodePData writes it, without its PDU header.
  const items = pdvs.map((p) => encodePData(p.contextId, p.command, p.last, p.value).subarray(6));
  const head = Buffer.from([PDU.pData, 0, 0, 0, 0, 0]);
  head.writeUInt32BE(items.reduce((n, b) => n + b.length, 0), 2);
  return Buffer.concat([head, ...items]);
}

/** The C-ECHO-RQ command set (PS3.7 9.3.5.1). */
export function echoRequest(messageId: number): Buffer {
  return commandSet([
    [0x0002, { uid: VERIFICATION }],
    [0x0100, { us: 0x0030 }],
    [0x0110, { us: messageId }],
    [0x0800, { us: 0x0101 }],
  ]);
}

export class RawScu {
  /** Accepted presentation contexts: id → transfer syntax. */
  readonly accepted = new Map<number, string>();
  private readonly commands: Command[] = [];
  private readonly pdus: number[] = [];
  private waiters: Array<() => void> = [];
  private commandParts: Buffer[] = [];
  readonly closed: Promise<void>;

  private constructor(readonly socket: net.Socket) {
    const reader = new PduReader(
      {
        pdu: (bytes, type) => {
          if (type === PDU.associateAc) this.readAccept(bytes);
          this.pdus.push(type);
          this.wake();
        },
        pdv: (_contextId, command, last, bytes, end) => {
          if (!command) return;
          this.commandParts.push(Buffer.from(bytes));
          if (end && last) {
            this.commands.push(parseCommand(Buffer.concat(this.commandParts)));
            this.commandParts = [];
            this.wake();
          }
        },
      },
      16 << 20,
    );
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => reader.push(chunk));
    socket.on('error', () => undefined);
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
    void this.closed.then(() => this.wake());
  }

  static async open(port: number, calling: string, contexts: ProposedContext[], maxPdu = 16384): Promise<RawScu> {
    const socket = net.connect(port, '127.0.0.1');
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    const scu = new RawScu(socket);
    socket.write(associateRequest(calling, 'RCLOUD', contexts, maxPdu, '1.2.826.0.1.3680043.10.1082.999'));
    const type = await scu.nextPdu();
    if (type !== PDU.associateAc) throw new Error(`association not accepted (PDU type ${type})`);
    return scu;
  }

  private readAccept(pdu: Buffer): void {
    for (const [id, ts] of readAssociateAccept(pdu).accepted) this.accepted.set(id, ts);
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  private async waitFor<T>(take: () => T | undefined, what: string, timeoutMs = 20_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const got = take();
      if (got !== undefined) return got;
      if (this.socket.destroyed || Date.now() > deadline) throw new Error(`no ${what} (connection ${this.socket.destroyed ? 'closed' : 'open'})`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
  }

  /** The next PDU other than P-DATA-TF (its type). */
  nextPdu(): Promise<number> {
    return this.waitFor(() => this.pdus.shift(), 'PDU');
  }

  /** The next DIMSE command received (a response). */
  nextCommand(): Promise<Command> {
    return this.waitFor(() => this.commands.shift(), 'DIMSE response');
  }

  /** Writes bytes in pieces of the given sizes (the rest in one), yielding to the event loop between them. */
  async write(bytes: Buffer, pieces: number[] = []): Promise<void> {
    let at = 0;
    for (const size of pieces) {
      if (at >= bytes.length) break;
      this.socket.write(bytes.subarray(at, at + size));
      at += size;
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (at < bytes.length) this.socket.write(bytes.subarray(at));
  }

  /** A-RELEASE-RQ, then the connection closes. */
  async release(): Promise<void> {
    this.socket.write(Buffer.from([PDU.releaseRq, 0, 0, 0, 0, 4, 0, 0, 0, 0]));
    await this.nextPdu();
    this.socket.end();
    await this.closed;
  }

  /** A-ABORT from the requester. */
  abort(): void {
    this.socket.end(Buffer.from([PDU.abort, 0, 0, 0, 0, 4, 0, 0, 0, 0]));
  }
}
