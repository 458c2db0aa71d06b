/**
 * A DICOM association requester that writes the upper-layer protocol by hand, for the
 * listener's receive path: where dcmtk and dcmjs-dimse always cut a message the same
 * tidy way, this one decides how commands and datasets are split into presentation
 * data values, PDUs and socket writes, and can abort half-way.
 */
import net from 'node:net';
import { commandSet, encodePData, parseCommand, PDU, PduReader, type Command, type CommandValue } from '../../server/dicom/pdu';

export const EXPLICIT_LE = '1.2.840.10008.1.2.1';
export const IMPLICIT_LE = '1.2.840.10008.1.2';
export const VERIFICATION = '1.2.840.10008.1.1';

export interface ProposedContext {
  id: number;
  abstractSyntax: string;
  transferSyntaxes: string[];
}

/** One presentation data value to send. */
export interface Pdv {
  contextId: number;
  command: boolean;
  last: boolean;
  value: Buffer;
}

const ascii = (text: string) => Buffer.from(text, 'latin1');

function item(type: number, body: Buffer): Buffer {
  const head = Buffer.from([type, 0, 0, 0]);
  head.writeUInt16BE(body.length, 2);
  return Buffer.concat([head, body]);
}

function aeTitle(title: string): Buffer {
  return ascii(title.padEnd(16, ' ').slice(0, 16));
}

/** A-ASSOCIATE-RQ (PS3.8 9.3.2). */
function associateRequest(calling: string, called: string, contexts: ProposedContext[], maxPdu: number): Buffer {
  const fixed = Buffer.concat([Buffer.from([0, 1, 0, 0]), aeTitle(called), aeTitle(calling), Buffer.alloc(32)]);
  const maxLength = Buffer.alloc(4);
  maxLength.writeUInt32BE(maxPdu);
  const items = [
    item(0x10, ascii('1.2.840.10008.3.1.1.1')),
    ...contexts.map((c) =>
      item(0x20, Buffer.concat([Buffer.from([c.id, 0, 0, 0]), item(0x30, ascii(c.abstractSyntax)), ...c.transferSyntaxes.map((ts) => item(0x40, ascii(ts)))])),
    ),
    item(0x50, Buffer.concat([item(0x51, maxLength), item(0x52, ascii('1.2.826.0.1.3680043.10.1082.999'))])),
  ];
  const body = Buffer.concat([fixed, ...items]);
  const head = Buffer.from([PDU.associateRq, 0, 0, 0, 0, 0]);
  head.writeUInt32BE(body.length, 2);
  return Buffer.concat([head, body]);
}

/** Several values in one P-DATA-TF. */
export function pData(pdvs: Pdv[]): Buffer {
  // Each value as encodePData writes it, without its PDU header.
  const items = pdvs.map((p) => encodePData(p.contextId, p.command, p.last, p.value).subarray(6));
  const head = Buffer.from([PDU.pData, 0, 0, 0, 0, 0]);
  head.writeUInt32BE(items.reduce((n, b) => n + b.length, 0), 2);
  return Buffer.concat([head, ...items]);
}

/** The C-STORE-RQ command set (PS3.7 9.3.1.1). */
export function storeRequest(messageId: number, sopClassUid: string, sopInstanceUid: string): Buffer {
  const elements: Array<[number, CommandValue]> = [
    [0x0002, { uid: sopClassUid }],
    [0x0100, { us: 0x0001 }],
    [0x0110, { us: messageId }],
    [0x0700, { us: 0 }],
    [0x0800, { us: 0 }],
    [0x1000, { uid: sopInstanceUid }],
  ];
  return commandSet(elements);
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
    socket.write(associateRequest(calling, 'RCLOUD', contexts, maxPdu));
    const type = await scu.nextPdu();
    if (type !== PDU.associateAc) throw new Error(`association not accepted (PDU type ${type})`);
    return scu;
  }

  private readAccept(pdu: Buffer): void {
    // Items follow the 6-byte PDU header and the 68-byte fixed fields.
    for (let at = 74; at + 4 <= pdu.length; ) {
      const type = pdu[at];
      const length = pdu.readUInt16BE(at + 2);
      const body = pdu.subarray(at + 4, at + 4 + length);
      if (type === 0x21 && body[2] === 0) {
        // Result 0 (acceptance) with its transfer syntax sub-item.
        const tsLength = body.readUInt16BE(6);
        this.accepted.set(body[0], body.toString('latin1', 8, 8 + tsLength).replace(/\0+$/, ''));
      }
      at += 4 + length;
    }
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
