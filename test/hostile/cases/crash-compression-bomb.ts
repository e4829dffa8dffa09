// attempts: a decompression bomb through DecompressionStream (100 MiB of
// zeros from ~100 KiB), counting the bytes and keeping none, under a 64 MiB
// limit; then 70 compression streams open at once in one call, and garbage
// fed to a decompressor.
// expect: ok
// expect-output: {"inflated":104857600,"opened":64,"refused":"TypeError","garbage":"TypeError"}
import { defineTool } from "corral";
import { z } from "zod";

type Pair = { readable: ReadableStream<Uint8Array>; writable: WritableStream<Uint8Array> };

async function drain(readable: ReadableStream<Uint8Array>, keep: Uint8Array[] | undefined): Promise<number> {
  let bytes = 0;
  for await (const chunk of readable as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.byteLength;
    keep?.push(chunk);
  }
  return bytes;
}

export default defineTool({
  name: "crash-compression-bomb",
  description: "hostile case: crash-compression-bomb",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 20000, memoryMb: 64 },
  async run() {
    const packer = new CompressionStream("gzip") as unknown as Pair;
    const packed: Uint8Array[] = [];
    const packing = drain(packer.readable, packed);
    const writer = packer.writable.getWriter();
    const zeros = new Uint8Array(1 << 20);
    for (let i = 0; i < 100; i++) await writer.write(zeros);
    await writer.close();
    await packing;
    const unpacker = new DecompressionStream("gzip") as unknown as Pair;
    const unpacking = drain(unpacker.readable, undefined);
    const w = unpacker.writable.getWriter();
    for (const chunk of packed) await w.write(chunk);
    await w.close();
    const inflated = await unpacking;
    const writers: WritableStreamDefaultWriter<Uint8Array>[] = [];
    let opened = 0;
    let refused = "none";
    for (let i = 0; i < 70; i++) {
      const pair = new CompressionStream("deflate") as unknown as Pair;
      void drain(pair.readable, undefined).catch(() => undefined);
      const wr = pair.writable.getWriter();
      writers.push(wr);
      try {
        await wr.write(new Uint8Array([1]));
        opened++;
      } catch (e) {
        refused = (e as Error).name;
        break;
      }
    }
    let garbage = "none";
    try {
      const bad = new DecompressionStream("deflate") as unknown as Pair;
      const reading = drain(bad.readable, undefined);
      reading.catch(() => undefined);
      const bw = bad.writable.getWriter();
      await bw.write(new Uint8Array(64).fill(0xff));
      await bw.close();
      await reading;
    } catch (e) {
      garbage = (e as Error).name;
    }
    return { inflated, opened, refused, garbage };
  },
});
