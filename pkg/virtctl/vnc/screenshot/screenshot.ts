// virtctl vnc screenshot (upstream pkg/virtctl/vnc/screenshot): GET .../virtualmachineinstances/{name}/vnc/
// screenshot and write the PNG to --file, or to stdout for "-".
import { writeFile } from "node:fs/promises";
import { errorMessage } from "../../../util/error-message.js";
import type { Command, CommandContext } from "../../command.js";
import { helpFlag, UsageError } from "../../flags.js";

async function run(context: CommandContext): Promise<void> {
  const [vmi = ""] = context.args;
  const file = context.flags.string("file");
  if (!context.flags.changed.has("file")) throw new UsageError(`required flag(s) "file" not set`);
  const { client } = await context.client();
  const query = new URLSearchParams({ moveCursor: String(context.flags.bool("move-cursor")) });
  let image: Buffer;
  try {
    image = await client.getBytes(
      client.subresourcePath("virtualmachineinstances", vmi, "vnc/screenshot"),
      query,
    );
  } catch (error) {
    throw new Error(`Can't access VMI ${vmi}: ${errorMessage(error)}`);
  }
  if (file === "-") {
    await new Promise<void>((resolve, reject) =>
      context.io.stdout.write(image, (error) =>
        error ? reject(new Error(`failed to write image to stdout: ${error.message}`)) : resolve(),
      ),
    );
    return;
  }
  await writeFile(file, image, { mode: 0o644 }).catch((error: unknown) => {
    throw new Error(`Can't write image to a file: ${errorMessage(error)}`);
  });
}

export const screenshotCommand: Command = {
  name: "screenshot",
  use: "screenshot (VMI)",
  short: "Create a VNC screenshot of a virtual machine instance.",
  example:
    "   # Take a VNC screenshot of 'testvmi' in png format:\n" +
    "   {{ProgramName}} vnc screenshot testvmi -f screenshot.png\n\n" +
    `   # Take a VNC screenshot of 'testvmi' in png format and pipe it through "display" to show it right away:\n` +
    "   {{ProgramName}} vnc screenshot testvmi -f - | display",
  flags: [
    {
      name: "file",
      short: "f",
      kind: "string",
      defaultValue: "",
      usage: "where to store the VNC screenshot in PNG format. User '-' for stdout",
    },
    {
      name: "move-cursor",
      short: "m",
      kind: "bool",
      defaultValue: false,
      usage: "move the cursor to wake up the screen in case of screensavers",
    },
    helpFlag("screenshot"),
  ],
  argCount: 1,
  run,
};
