// The guest reads its cloud-init data with rootfs/usr/lib/kubevirt-ts/cloud-config.awk under busybox
// awk; these rows run the same program with the host's busybox (the binary copied into the guest).
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const PROGRAM = fileURLToPath(new URL("./rootfs/usr/lib/kubevirt-ts/cloud-config.awk", import.meta.url));
// busybox-static is what the build installs; before the first build, the host's awk stands in.
const awk = existsSync("/bin/busybox") ? ["/bin/busybox", "awk"] : ["awk"];
if (awk.length === 1)
  console.warn("cloud-config.awk tests: /bin/busybox missing, using the host's awk instead");

function runAwk(mode: "scalar" | "list", key: string, input: string): string {
  const [command = "awk", ...args] = awk;
  return execFileSync(command, [...args, "-v", `${mode}=${key}`, "-f", PROGRAM], { input, encoding: "utf8" });
}

describe("cloud-config.awk scalar mode", () => {
  it.each([
    {
      rule: "compact JSON meta-data, as KubeVirt writes it",
      key: "local-hostname",
      input: '{"instance-type":"u1.small","instance-id":"vm.ns","local-hostname":"vm1"}',
      want: "vm1\n",
    },
    { rule: "indented JSON", key: "instance-id", input: '{\n  "instance-id": "vm.ns"\n}\n', want: "vm.ns\n" },
    { rule: "plain YAML value", key: "hostname", input: "#cloud-config\nhostname: web-1\n", want: "web-1\n" },
    {
      rule: "YAML comment dropped",
      key: "hostname",
      input: "hostname: web-1   # the name\n",
      want: "web-1\n",
    },
    { rule: "double quotes", key: "hostname", input: 'hostname: "a # b" # c\n', want: "a # b\n" },
    { rule: "single quotes with ''", key: "fqdn", input: "fqdn: 'it''s.example'\n", want: "it's.example\n" },
    { rule: "CRLF line ends", key: "hostname", input: "hostname: win\r\n", want: "win\n" },
    { rule: "only top-level keys", key: "hostname", input: "users:\n  hostname: nested\n", want: "" },
    {
      rule: "first occurrence wins",
      key: "hostname",
      input: "hostname: one\nhostname: two\n",
      want: "one\n",
    },
    { rule: "missing key", key: "hostname", input: "runcmd:\n  - ls\n", want: "" },
    { rule: "a boolean as written", key: "ssh_pwauth", input: "ssh_pwauth: True\n", want: "True\n" },
    {
      rule: "double-quoted escapes undone",
      key: "password",
      input: 'password: "a\\"b\\\\c"\n',
      want: 'a"b\\c\n',
    },
  ])("$rule", ({ key, input, want }) => {
    expect(runAwk("scalar", key, input)).toBe(want);
  });
});

describe("cloud-config.awk list mode", () => {
  it.each([
    {
      rule: "plain items, indented",
      input: "#cloud-config\nruncmd:\n  - echo one\n  - touch /tmp/x\n",
      want: "echo one\ntouch /tmp/x\n",
    },
    {
      rule: "items at the key's indentation",
      input: "runcmd:\n- echo a\n- echo b\n",
      want: "echo a\necho b\n",
    },
    {
      rule: "quoted items lose their quotes, keep the shell's",
      input: "runcmd:\n  - 'echo \"x y\"'\n  - \"echo 'z'\"\n",
      want: "echo \"x y\"\necho 'z'\n",
    },
    {
      rule: "a trailing YAML comment is dropped, a quoted # is kept",
      input: "runcmd:\n  - echo hi # greet\n  - 'echo #1'\n",
      want: "echo hi\necho #1\n",
    },
    {
      rule: "argv lists are single-quoted per element",
      input: 'runcmd:\n  - [ sh, -c, "echo it\'s, ok" ]\n',
      want: "'sh' '-c' 'echo it'\\''s, ok'\n",
    },
    {
      rule: "literal block keeps lines and relative indentation",
      input: "runcmd:\n  - |\n    if true; then\n      echo in\n    fi\n  - echo after\n",
      want: "if true; then\n  echo in\nfi\necho after\n",
    },
    {
      rule: "folded block joins lines",
      input: "runcmd:\n  - >\n    echo a\n    b\nhostname: x\n",
      want: "echo a b\n",
    },
    {
      rule: "the list ends at the next top-level key; other lists are ignored",
      input: "bootcmd:\n  - echo boot\nruncmd:\n  - echo run\nhostname: x\npackages:\n  - vim\n",
      want: "echo run\n",
    },
    { rule: "blank and comment lines inside the list", input: "runcmd:\n\n  # c\n  - ls\n", want: "ls\n" },
    { rule: "no such list", input: "#cloud-config\nhostname: x\n", want: "" },
    {
      rule: "a flow list on the key's line: one element a line, unquoted",
      input: "runcmd: [ls, 'echo a, b', \"echo c\"]  # three\nhostname: x\n",
      want: "ls\necho a, b\necho c\n",
    },
    {
      rule: 'double-quoted items lose their escapes (\\" \\\\ \\t)',
      input: 'runcmd:\n  - "printf \\"%s\\\\n\\" a\\tb"\n',
      want: 'printf "%s\\n" a\tb\n',
    },
  ])("$rule", ({ input, want }) => {
    expect(runAwk("list", "runcmd", input)).toBe(want);
  });

  it("reads ssh_authorized_keys as upstream's tests write it", () => {
    const key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIO7e1mBvHw9K user@host";
    expect(runAwk("list", "ssh_authorized_keys", `#cloud-config\nssh_authorized_keys:\n  - ${key}\n`)).toBe(
      `${key}\n`,
    );
    expect(runAwk("list", "ssh_authorized_keys", `ssh_authorized_keys: ["${key}", '${key} 2']\n`)).toBe(
      `${key}\n${key} 2\n`,
    );
  });

  it.each([
    {
      rule: "a literal block under the child: its lines",
      input: "chpasswd:\n  expire: False\n  list: |\n    root:pw1\n    cirros:pw2\nruncmd:\n  - ls\n",
      want: "root:pw1\ncirros:pw2\n",
    },
    {
      rule: "the block ends at the next child",
      input: "chpasswd:\n  list: |\n    root:pw1\n  expire: False\n",
      want: "root:pw1\n",
    },
    {
      rule: "a block list at the child's indentation",
      input: "chpasswd:\n  list:\n  - root:pw1\n  - 'cirros:p w'\n  expire: False\n",
      want: "root:pw1\ncirros:p w\n",
    },
    {
      rule: "a block list indented under the child",
      input: "chpasswd:\n    list:\n      - root:pw1\nhostname: x\n",
      want: "root:pw1\n",
    },
    {
      rule: "a flow list on the child's line",
      input: 'chpasswd:\n  list: [ "root:pw1", cirros:pw2 ]\n',
      want: "root:pw1\ncirros:pw2\n",
    },
    {
      rule: "a flow mapping on the key's line, its list a flow list",
      input: 'chpasswd: { expire: False, list: [ "root:pw1", "cirros:a,b" ] }\n',
      want: "root:pw1\ncirros:a,b\n",
    },
    {
      rule: "a flow mapping, its list a double-quoted string of lines",
      input: 'chpasswd: {list: "root:pw1\\ncirros:pw2", expire: false}\n',
      want: "root:pw1\ncirros:pw2\n",
    },
    {
      rule: "upstream's `chpasswd: { expire: False }`: no list",
      input: "chpasswd: { expire: False }\n",
      want: "",
    },
    {
      rule: "only the mapping's own child: a top-level list of that name is another key",
      input: "list:\n  - no\nchpasswd:\n  users:\n    - name: root\n",
      want: "",
    },
  ])("nested key chpasswd.list: $rule", ({ input, want }) => {
    expect(runAwk("list", "chpasswd.list", input)).toBe(want);
  });

  it("yields shell text that runs: each runcmd item as one command", () => {
    const script = runAwk(
      "list",
      "runcmd",
      'runcmd:\n  - echo "$((6*7))"\n  - [ printf, "%s-%s\\n", a b, c ]\n',
    );
    expect(execFileSync("sh", ["-c", script], { encoding: "utf8" })).toBe("42\na b-c\n");
  });
});
