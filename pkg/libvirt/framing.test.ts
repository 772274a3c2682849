import { describe, expect, it } from "vitest";
import { LibvirtProtocolError } from "./errors.js";
import { PacketSplitter, encodePacket } from "./framing.js";
import { REMOTE_PROC_CONNECT_OPEN, REMOTE_PROGRAM } from "./generated/remote-protocol.js";
import { VIR_NET_CALL, VIR_NET_OK, VIR_NET_REPLY } from "./generated/virnet-protocol.js";

const call = {
  prog: REMOTE_PROGRAM,
  vers: 1,
  proc: REMOTE_PROC_CONNECT_OPEN,
  type: VIR_NET_CALL,
  serial: 7,
  status: VIR_NET_OK,
} as const;

describe("packet framing", () => {
  it("prefixes the length (counting itself) and the 24-byte header", () => {
    const packet = encodePacket(call, Buffer.from("00000000", "hex"));
    expect(packet.toString("hex")).toBe(
      "00000020" + "20008086" + "00000001" + "00000001" + "00000000" + "00000007" + "00000000" + "00000000",
    );
  });

  it("reassembles packets split across chunks and separates packets sharing one", () => {
    const first = encodePacket(call, Buffer.from("0000000a", "hex"));
    const second = encodePacket({ ...call, type: VIR_NET_REPLY, serial: 8 }, Buffer.alloc(0));
    const stream = Buffer.concat([first, second]);
    const splitter = new PacketSplitter();
    const packets = [];
    for (let offset = 0; offset < stream.length; offset += 3)
      packets.push(...splitter.push(stream.subarray(offset, offset + 3)));
    expect(packets.map((p) => [p.header.serial, p.header.type, p.payload.toString("hex")])).toEqual([
      [7, VIR_NET_CALL, "0000000a"],
      [8, VIR_NET_REPLY, ""],
    ]);
    expect(new PacketSplitter().push(stream)).toHaveLength(2);
  });

  it("refuses lengths no daemon sends before waiting for their bytes", () => {
    expect(() => new PacketSplitter().push(Buffer.from("00000010", "hex"))).toThrow(LibvirtProtocolError);
    expect(() => new PacketSplitter().push(Buffer.from("7fffffff", "hex"))).toThrow(
      /packet length 2147483647 is outside/,
    );
  });

  it("refuses a header with an unknown message type", () => {
    const bad = encodePacket(call, Buffer.alloc(0));
    bad.writeInt32BE(99, 16); // the type field
    expect(() => new PacketSplitter().push(bad)).toThrow(
      /bad message header: .*99 is not a value of enum virNetMessageType/,
    );
  });

  it("refuses to build a message larger than libvirt accepts", () => {
    expect(() => encodePacket(call, Buffer.alloc(33554432))).toThrow(/exceeds libvirt's limit/);
  });
});
