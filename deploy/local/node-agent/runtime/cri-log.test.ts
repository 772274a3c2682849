import { describe, expect, it } from "vitest";
import { CriLineSplitter, createNanoClock, formatLogRecord, formatRfc3339Nano } from "./cri-log.js";

const T = 1_475_713_029_669_794_202n; // 2016-10-06T00:17:09.669794202Z

function fixedClock(): () => bigint {
  return () => T;
}

function texts(records: Buffer[]): string[] {
  return records.map((record) => record.toString());
}

describe("formatRfc3339Nano", () => {
  it.each([
    [T, "2016-10-06T00:17:09.669794202Z"],
    [1_475_713_029_000_000_000n, "2016-10-06T00:17:09Z"],
    [1_475_713_029_500_000_000n, "2016-10-06T00:17:09.5Z"],
    [1_475_713_029_000_000_010n, "2016-10-06T00:17:09.00000001Z"],
  ])("formats %s like Go", (nanos, text) => {
    expect(formatRfc3339Nano(nanos)).toBe(text);
  });
});

describe("formatLogRecord", () => {
  it("writes kubelet's record layout", () => {
    expect(formatLogRecord(T, "stderr", false, Buffer.from("boom")).toString()).toBe(
      "2016-10-06T00:17:09.669794202Z stderr F boom\n",
    );
  });
});

describe("CriLineSplitter", () => {
  it("emits one full record per line and holds back the unfinished rest", () => {
    const splitter = new CriLineSplitter("stdout", fixedClock());
    expect(texts(splitter.push(Buffer.from("first\nsec")))).toEqual([
      "2016-10-06T00:17:09.669794202Z stdout F first\n",
    ]);
    expect(texts(splitter.push(Buffer.from("ond\n\n")))).toEqual([
      "2016-10-06T00:17:09.669794202Z stdout F second\n",
      "2016-10-06T00:17:09.669794202Z stdout F \n",
    ]);
  });

  it("cuts an oversized line into partial records ending with a full one", () => {
    const splitter = new CriLineSplitter("stdout", fixedClock(), 4);
    expect(texts(splitter.push(Buffer.from("abcdefghij\n")))).toEqual([
      "2016-10-06T00:17:09.669794202Z stdout P abcd\n",
      "2016-10-06T00:17:09.669794202Z stdout P efgh\n",
      "2016-10-06T00:17:09.669794202Z stdout F ij\n",
    ]);
  });

  it("flushes an unterminated last line as full at the end, once", () => {
    const splitter = new CriLineSplitter("stderr", fixedClock());
    expect(splitter.push(Buffer.from("no newline"))).toEqual([]);
    expect(texts(splitter.end())).toEqual(["2016-10-06T00:17:09.669794202Z stderr F no newline\n"]);
    expect(splitter.end()).toEqual([]);
  });

  it("keeps bytes intact across chunk boundaries (multi-byte characters)", () => {
    const splitter = new CriLineSplitter("stdout", fixedClock());
    const bytes = Buffer.from("héllo\n");
    const records = [...splitter.push(bytes.subarray(0, 2)), ...splitter.push(bytes.subarray(2))];
    expect(texts(records)).toEqual(["2016-10-06T00:17:09.669794202Z stdout F héllo\n"]);
  });
});

describe("createNanoClock", () => {
  it("tracks the wall clock and never goes backwards", () => {
    const clock = createNanoClock();
    const a = clock();
    const b = clock();
    expect(b >= a).toBe(true);
    expect(Number(a / 1_000_000n) - Date.now()).toBeLessThan(1000);
  });
});
