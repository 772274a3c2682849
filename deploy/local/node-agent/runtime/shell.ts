import type { MountPropagation } from "./container-mounts.js";
import type { MountStep } from "./container-root.js";

// The two small shell programs behind a container start. The setup script performs a planned list of
// mount steps inside the container's mount namespace (run by the agent through nsenter, with a clean
// environment). The supervisor is the process the agent spawns into the container's namespaces: it reports
// that they exist, waits for the agent's go-ahead, runs the container's command in its new root and
// records the exit status. Every value is single-quoted, so paths and arguments never reach the shell as
// code.

/** Quotes one word for POSIX sh. */
export function shellQuote(word: string): string {
  if (word.includes("\0")) throw new Error("a shell word cannot contain NUL");
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

function overlayOption(what: string, value: string): string {
  // The overlay option string uses ',' and ':' as separators and cannot escape them.
  if (/[,:]/.test(value))
    throw new Error(`overlay ${what} path ${JSON.stringify(value)} may not contain ',' or ':'`);
  return `${what}=${value}`;
}

/** kubelet's propagation modes as the container runtime applies them to a bind mount (runc's rprivate, rslave, rshared). */
const PROPAGATION_FLAGS: Record<MountPropagation, string> = {
  None: "--make-rprivate",
  HostToContainer: "--make-rslave",
  Bidirectional: "--make-rshared",
};

function renderStep(step: MountStep): string[] {
  const q = shellQuote;
  switch (step.op) {
    case "tmpfs":
      return [`mount -t tmpfs -o ${q(step.options)} tmpfs ${q(step.target)}`];
    case "mkdir":
      return [`mkdir -p ${q(step.target)}`];
    case "touch":
      return [`: >> ${q(step.target)}`];
    case "overlay": {
      const options = [
        overlayOption("lowerdir", step.lower),
        overlayOption("upperdir", step.upper),
        overlayOption("workdir", step.work),
      ].join(",");
      return [`mount -t overlay -o ${q(options)} overlay ${q(step.target)}`];
    }
    case "bind":
      return [
        `mount --rbind ${q(step.source)} ${q(step.target)}`,
        ...(step.readOnly ? [`mount -o remount,bind,ro ${q(step.target)}`] : []),
      ];
    case "devpts":
      return [`mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts ${q(step.target)}`];
    case "symlink":
      return [`ln -sfn ${q(step.linkTo)} ${q(step.target)}`];
    case "write":
      return [
        `printf '%s' ${q(step.content)} > ${q(step.target)}`,
        `chmod ${step.mode.toString(8)} ${q(step.target)}`,
      ];
    case "copy":
      return [`cp ${q(step.source)} ${q(step.target)}`, `chmod ${step.mode.toString(8)} ${q(step.target)}`];
    case "propagation":
      return [`mount ${PROPAGATION_FLAGS[step.propagation]} ${q(step.target)}`];
    case "private":
      return [`mount --make-private ${q(step.target)}`];
  }
}

export function renderSetupScript(steps: readonly MountStep[]): string {
  return ["set -e", ...steps.flatMap(renderStep), ""].join("\n");
}

/** Exit code of a supervisor that never got the go-ahead (the start was abandoned). */
export const ABANDONED_START_EXIT_CODE = 125;

export interface SupervisorOptions {
  unsharePath: string;
  rootDir: string;
  workingDir: string;
  /** Where the command's exit status is written, for an agent that was away when it ended. */
  statusFile: string;
  uid?: number;
  gid?: number;
  /** Set in the container's own UTS namespace (pods with their own network), as kubelet does. */
  hostname?: string;
  /** With uid: capabilities the command keeps after the switch (setpriv's ambient set), e.g. net_bind_service. */
  ambientCapabilities?: string[];
}

/** setpriv, as the container's root holds it (component images run on the host's files). */
export const SETPRIV_PATH = "/usr/bin/setpriv";

/** Switches to uid/gid keeping `caps` as the only ambient, inheritable and bounding capabilities. */
function setprivArgs(uid: number, gid: number, caps: readonly string[]): string[] {
  const set = ["-all", ...caps.map((cap) => `+${cap}`)].join(",");
  return [
    SETPRIV_PATH,
    `--reuid=${uid}`,
    `--regid=${gid}`,
    "--clear-groups",
    `--inh-caps=${set}`,
    `--ambient-caps=${set}`,
    `--bounding-set=${set}`,
    "--",
  ];
}

/** The supervisor; the container's argv follows as "$@", and fd 3 is the agent's control socket. */
export function renderSupervisorScript(options: SupervisorOptions): string {
  const caps = options.ambientCapabilities ?? [];
  const viaSetpriv = options.uid !== undefined && caps.length > 0;
  const identity =
    options.uid !== undefined && !viaSetpriv
      ? [`--setgid=${options.gid ?? 0}`, `--setuid=${options.uid}`].map(shellQuote)
      : [];
  const switchUser = viaSetpriv ? setprivArgs(options.uid ?? 0, options.gid ?? 0, caps).map(shellQuote) : [];
  const run = [
    shellQuote(options.unsharePath),
    shellQuote(`--root=${options.rootDir}`),
    shellQuote(`--wd=${options.workingDir}`),
    ...identity,
    "--",
    ...switchUser,
    '"$@"',
  ].join(" ");
  const abandon = `exit ${ABANDONED_START_EXIT_CODE}`;
  // Written through /proc, so the container's image needs no hostname tool.
  const hostname =
    options.hostname === undefined
      ? []
      : [`printf '%s' ${shellQuote(options.hostname)} > /proc/sys/kernel/hostname || ${abandon}`];
  return [
    ...hostname,
    `echo ready >&3 || ${abandon}`,
    `IFS= read -r go <&3 || ${abandon}`,
    `[ "$go" = run ] || ${abandon}`,
    "exec 3<&-",
    // A caught signal is reset in the command, which still gets it from the process group; the shell
    // itself keeps waiting, so it can record how the command ended.
    "trap : TERM INT HUP QUIT",
    run,
    "status=$?",
    `printf '%s\\n' "$status" > ${shellQuote(options.statusFile)}`,
    'exit "$status"',
    "",
  ].join("\n");
}
