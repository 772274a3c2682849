import { describe, expect, it } from "vitest";
import { BenchError } from "../common/bench-error.js";
import { ANSWER, ANSWER_COMMAND, PROMPT, Transcript, awaitAnswer } from "./probe.js";

/** A guest shell: silent until `bootPokes` Enters, then a prompt per line, and the answer to the command. */
function fakeGuest(bootPokes: number): { console: Transcript; typed: string[] } {
  const typed: string[] = [];
  let pokes = 0;
  const console: Transcript = new Transcript((text) => {
    typed.push(text);
    // The console echoes what is typed, as a tty does.
    setImmediate(() => {
      console.append(text.replace(/\r$/, "\r\n"));
      if (text === "\r" && ++pokes >= bootPokes) console.append("root@bench-vm-boot:~# ");
      if (text === ANSWER_COMMAND) console.append("kvts-42-6.25\r\nroot@bench-vm-boot:~# ");
    });
  });
  return { console, typed };
}

describe("console probe", () => {
  it("does not take the typed line's echo for the answer", () => {
    expect(ANSWER.test(ANSWER_COMMAND)).toBe(false);
    expect(ANSWER.exec("kvts-42-12.04\r\n")?.[1]).toBe("12.04");
    expect(PROMPT.test("root@bench-vm-boot:~# ")).toBe(true);
  });

  it("presses Enter until the prompt shows, then reads the answer and the guest's uptime", async () => {
    const { console, typed } = fakeGuest(3);
    const answer = await awaitAnswer(console, 5_000, 5);
    expect(answer.guestUptimeS).toBe(6.25);
    expect(answer.answerAtMs).toBeGreaterThanOrEqual(answer.promptAtMs);
    expect(typed.slice(0, 3)).toEqual(["\r", "\r", "\r"]);
    expect(typed).toContain(ANSWER_COMMAND);
  });

  it("fails with the transcript when the console ends or stays silent", async () => {
    const ended = new Transcript(() => undefined);
    ended.append("SeaBIOS\r\n");
    setImmediate(() => ended.end("QEMU exited (1)"));
    await expect(awaitAnswer(ended, 5_000, 5)).rejects.toThrow(/QEMU exited \(1\) before[\s\S]*SeaBIOS/);
    const silent = new Transcript(() => undefined);
    await expect(awaitAnswer(silent, 30, 5)).rejects.toThrow(BenchError);
  });
});
