// `virtctl create vm` against upstream: the manifests in testdata/ are what upstream v1.8.4's virtctl
// printed for the same flags, byte for byte; the tables follow upstream's vm_test.go.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { afterAll, describe, expect, it } from "vitest";
import { execute } from "../../root.js";
import { testIO } from "../../testing/scripted-apiserver.js";
import { createCommand } from "../create.js";
import { newCreateVMCommand } from "./vm.js";

const scratch = mkdtempSync(join(tmpdir(), "create-vm-test-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const PASSWORD_FILE = join(scratch, "pw");
writeFileSync(PASSWORD_FILE, "s3cret\n");

/** Generated names count up: vm-r0000, imported-volume-r0001, ... */
function counter(): () => string {
  let next = 0;
  return () => `r${String(next++).padStart(4, "0")}`;
}

async function run(args: string[], env: Record<string, string> = {}) {
  const io = testIO(env);
  const commands = [{ ...createCommand, subcommands: [newCreateVMCommand(counter())] }];
  const code = await execute(["create", "vm", ...args], io, "virtctl", commands);
  return { code, stdout: io.output(), stderr: io.errors() };
}

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: Record<string, unknown>;
  spec: {
    runStrategy?: string;
    instancetype?: Record<string, unknown>;
    preference?: Record<string, unknown>;
    dataVolumeTemplates?: { metadata: { name: string }; spec: Record<string, unknown> }[];
    template: {
      spec: {
        domain: { memory?: { guest: string }; devices: { disks?: unknown[] } };
        terminationGracePeriodSeconds: number;
        volumes?: ({ name: string } & Record<string, unknown>)[];
        accessCredentials?: unknown[];
      };
    };
  };
}

async function manifest(...args: string[]): Promise<Manifest> {
  const result = await run(args);
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  return parse(result.stdout) as Manifest;
}

const spec = (vm: Manifest) => vm.spec.template.spec;
const volumes = (vm: Manifest) => spec(vm).volumes ?? [];
const userData = (vm: Manifest, kind = "cloudInitNoCloud") =>
  (volumes(vm).find((v) => v.name === "cloudinitdisk")?.[kind] as { userData?: string } | undefined)
    ?.userData;

describe("manifests print exactly as upstream's", () => {
  it.each([
    {
      file: "instancetype-pvc-sysprep-user-data.yaml",
      args: [
        "--name=my-vm",
        "--run-strategy=Manual",
        "--termination-grace-period=123",
        "--instancetype=virtualmachineinstancetype/my-instancetype",
        "--infer-preference-from=my-pvc",
        "--volume-import=type:ds,src:my-ns/my-ds,size:10Gi,name:my-dv",
        "--volume-pvc=src:my-pvc,bootorder:1",
        "--volume-sysprep=src:my-secret,type:secret",
        "--cloud-init-user-data=I2Nsb3VkLWNvbmZpZwp1c2VyOiB1c2Vy",
      ],
    },
    {
      file: "containerdisk-access-cred-ga.yaml",
      args: [
        "--name=my-vm",
        "--volume-containerdisk=src:my.registry/my-image:my-tag",
        "--user=my-user",
        "--access-cred=type:ssh,src:my-keys",
      ],
    },
    {
      file: "every-import-source.yaml",
      args: [
        "--name=v2",
        "--volume-import=type:ds,src:my-ns/my-ds,size:1.5Gi,name:ds1",
        "--volume-import=type:http,url:http://x/y.img,size:1Gi,extraheaders:a;b,name:h",
        "--volume-pvc=src:mypvc,bootorder:1",
        "--access-cred=src:my-keys,method:nocloud",
        "--access-cred=type:password,src:pw",
        "--volume-sysprep=src:cm,type:secret",
        "--volume-import=type:registry,url:docker://x,size:1e3,name:r,pullmethod:node",
        "--volume-import=type:vddk,size:256Mi,backingfile:backing-file,initimageurl:http://url.com,uuid:123e-11,url:http://url.com,thumbprint:test-thumbprint,secretref:test-credentials,name:vd",
        "--volume-import=type:snapshot,src:a/b,name:snap",
        "--volume-import=type:pvc,src:a/b,name:pv",
        "--volume-import=type:gcs,url:gs://x,size:1Gi,name:g,secretref:gs",
        "--volume-import=type:imageio,url:http://i,diskid:1,size:1Gi,name:io",
        "--volume-import=type:s3,url:s3://x,size:1Gi,name:s3x",
        "--volume-import=type:blank,size:2Gi,name:scratch,bootorder:3",
      ],
    },
  ])("$file", async ({ file, args }) => {
    const result = await run(args);
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe(readFileSync(new URL(`testdata/${file}`, import.meta.url), "utf8"));
  });

  it("a generated ConfigDrive config with every cloud-init flag, warning about the password", async () => {
    const result = await run([
      "--name=my-vm",
      "--volume-containerdisk=src:quay.io/containerdisks/fedora:latest,name:root",
      "--cloud-init=configdrive",
      "--user=fedora",
      `--password-file=${PASSWORD_FILE}`,
      "--ssh-key=ssh-ed25519 AAAA x@y,ssh-rsa BBBB",
      "--ga-manage-ssh",
      "--cloud-init-network-data=bmV0d29yazoK",
      "--access-cred=type:password,src:pws",
      "-n",
      "my-ns",
    ]);
    expect(result.stdout).toBe(
      readFileSync(new URL("testdata/containerdisk-configdrive-generated.yaml", import.meta.url), "utf8"),
    );
    expect(result.stderr).toBe(
      "WARNING: --password-file: The password is stored in cleartext in the VM definition!\n",
    );
  });

  it("the deprecated volume flags, each put before the imports, with a notice each", async () => {
    const result = await run([
      "--name=dep",
      "--volume-datasource=src:a,name:a",
      "--volume-datasource=src:n/b,name:b",
      "--volume-clone-pvc=src:n/p,name:c",
      "--volume-blank=size:1Gi,name:bl",
      "--volume-import=type:ds,src:d,name:d",
      "--volume-containerdisk=src:img,bootorder:2",
    ]);
    expect(result.stdout).toBe(
      readFileSync(new URL("testdata/deprecated-volume-flags.yaml", import.meta.url), "utf8"),
    );
    expect(result.stderr).toBe(
      ["volume-datasource", "volume-clone-pvc", "volume-blank"]
        .map((flag) => `Flag --${flag} has been deprecated, use flag --volume-import instead\n`)
        .join(""),
    );
  });

  it("without flags: a generated name, RunStrategy Always, 180 s grace period and 512Mi", async () => {
    expect((await run([])).stdout).toBe(
      [
        "apiVersion: kubevirt.io/v1",
        "kind: VirtualMachine",
        "metadata:",
        "  name: vm-r0000",
        "spec:",
        "  runStrategy: Always",
        "  template:",
        "    metadata: {}",
        "    spec:",
        "      domain:",
        "        devices: {}",
        "        memory:",
        "          guest: 512Mi",
        "        resources: {}",
        "      terminationGracePeriodSeconds: 180",
        "status: {}",
        "",
      ].join("\n"),
    );
  });

  it("generated names use k8s rand.String's alphabet", async () => {
    const io = testIO();
    await execute(["create", "vm", "--volume-import=type:blank,size:1Gi"], io, "virtctl");
    const vm = parse(io.output()) as Manifest;
    expect(vm.metadata.name).toMatch(/^vm-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(vm.spec.dataVolumeTemplates?.[0]?.metadata.name).toMatch(
      /^imported-volume-[bcdfghjklmnpqrstvwxz2456789]{5}$/,
    );
  });
});

describe("the namespace", () => {
  it("is only the one given with -n, never the kubeconfig context's", async () => {
    const dir = mkdtempSync(join(scratch, "kubeconfig-"));
    const kubeconfig = join(dir, "config");
    writeFileSync(
      kubeconfig,
      [
        "apiVersion: v1",
        "kind: Config",
        "clusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]",
        "users: [{name: u, user: {token: t}}]",
        "contexts: [{name: x, context: {cluster: c, user: u, namespace: from-context}}]",
        "current-context: x",
      ].join("\n"),
    );
    expect((parse((await run([], { KUBECONFIG: kubeconfig })).stdout) as Manifest).metadata).toEqual({
      name: "vm-r0000",
    });
    const given = await run(["-n", "given"], { KUBECONFIG: kubeconfig });
    expect((parse(given.stdout) as Manifest).metadata).toEqual({ name: "vm-r0000", namespace: "given" });
  });

  it("is taken from -n with no kubeconfig at all, and a broken kubeconfig is refused", async () => {
    expect((await manifest("--namespace=my-namespace")).metadata.namespace).toBe("my-namespace");
    const broken = await run(["--kubeconfig=/does/not/exist"]);
    expect(broken).toEqual({
      code: 1,
      stdout: "",
      stderr: "stat /does/not/exist: no such file or directory\n",
    });
  });
});

describe("flags that shape the manifest", () => {
  it.each([
    ["Manual", "Manual"],
    ["rerunonfailure", "RerunOnFailure"],
    ["HALTED", "Halted"],
    ["Once", "Once"],
  ])("--run-strategy=%s", async (given, runStrategy) => {
    expect((await manifest(`--run-strategy=${given}`)).spec.runStrategy).toBe(runStrategy);
  });

  it("--termination-grace-period and --memory", async () => {
    const vm = await manifest("--termination-grace-period=123", "--memory=1.5Gi");
    expect(spec(vm).terminationGracePeriodSeconds).toBe(123);
    expect(spec(vm).domain.memory).toEqual({ guest: "1536Mi" });
  });

  it.each([
    ["my-instancetype", { name: "my-instancetype" }],
    [
      "virtualmachineclusterinstancetype/my-cit",
      { name: "my-cit", kind: "virtualmachineclusterinstancetype" },
    ],
    ["VirtualMachineInstancetype/my-it", { name: "my-it", kind: "virtualmachineinstancetype" }],
  ])("--instancetype=%s drops the guest memory", async (given, matcher) => {
    const vm = await manifest(`--instancetype=${given}`);
    expect(vm.spec.instancetype).toEqual(matcher);
    expect(spec(vm).domain.memory).toBeUndefined();
  });

  it.each([
    ["my-preference", { name: "my-preference" }],
    ["virtualmachineclusterpreference/my-cp", { name: "my-cp", kind: "virtualmachineclusterpreference" }],
    ["virtualmachinepreference/my-p", { name: "my-p", kind: "virtualmachinepreference" }],
  ])("--preference=%s", async (given, matcher) => {
    expect((await manifest(`--preference=${given}`)).spec.preference).toEqual(matcher);
  });
});

describe("inferring the instancetype and preference", () => {
  const IGNORE = { inferFromVolumeFailurePolicy: "Ignore" };

  it.each([
    { args: ["--volume-pvc=src:my-pvc"], volume: "my-pvc", explicit: false },
    {
      args: ["--volume-pvc=src:my-pvc", "--infer-instancetype", "--infer-preference"],
      volume: "my-pvc",
      explicit: true,
    },
    {
      args: ["--volume-import=type:pvc,size:1Gi,src:my-ns/my-volume,name:my-pvc"],
      volume: "my-pvc",
      explicit: false,
    },
    {
      args: [
        "--volume-import=type:registry,size:1Gi,url:docker://my-containerdisk,name:my-cd",
        "--infer-instancetype=true",
        "--infer-preference=true",
      ],
      volume: "my-cd",
      explicit: true,
    },
    { args: ["--volume-import=type:snapshot,src:ns/snap,name:s"], volume: "s", explicit: false },
    {
      args: [
        "--volume-import=type:ds,src:my-ds-2,bootorder:2",
        "--volume-import=type:ds,src:my-ds-1,bootorder:1",
      ],
      volume: "imported-volume-r0002",
      explicit: false,
    },
  ])("$args", async ({ args, volume, explicit }) => {
    const vm = await manifest(...args);
    expect(vm.spec.instancetype).toEqual({ inferFromVolume: volume, ...(explicit ? {} : IGNORE) });
    expect(vm.spec.preference).toEqual({ inferFromVolume: volume, ...(explicit ? {} : IGNORE) });
    // Implicit inference keeps the guest memory as the fallback.
    expect(spec(vm).domain.memory).toEqual(explicit ? undefined : { guest: "512Mi" });
  });

  it("from the volumes named", async () => {
    const vm = await manifest(
      "--volume-import=type:ds,src:my-ds-1,name:my-ds-1",
      "--volume-import=type:ds,src:my-ds-2,name:my-ds-2",
      "--infer-instancetype-from=my-ds-2",
      "--infer-preference-from=my-ds-1",
    );
    expect(vm.spec.instancetype).toEqual({ inferFromVolume: "my-ds-2" });
    expect(vm.spec.preference).toEqual({ inferFromVolume: "my-ds-1" });
    expect(spec(vm).domain.memory).toBeUndefined();
  });

  it("not when turned off, nor the instancetype when --memory is given", async () => {
    const off = await manifest(
      "--volume-import=type:ds,src:my-ds",
      "--infer-instancetype=false",
      "--infer-preference=false",
    );
    expect([off.spec.instancetype, off.spec.preference]).toEqual([undefined, undefined]);
    const memory = await manifest("--memory=1Gi", "--volume-import=type:ds,src:my-ds,name:my-ds");
    expect(memory.spec.instancetype).toBeUndefined();
    expect(memory.spec.preference).toEqual({ inferFromVolume: "my-ds", ...IGNORE });
    expect(spec(memory).domain.memory).toEqual({ guest: "1Gi" });
  });

  it.each([
    ["--volume-containerdisk=src:my.registry/my-image:my-tag"],
    ["--volume-import=type:http,size:256Mi,url:http://url.com"],
    ["--volume-import=type:blank,size:256Mi"],
  ])("implicit inference from a volume it cannot use is left out: %s", async (volume) => {
    const vm = await manifest(volume);
    expect([vm.spec.instancetype, vm.spec.preference]).toEqual([undefined, undefined]);
  });
});

describe("volumes", () => {
  it.each([
    ["src:my.registry/my-image:my-tag", "vm-r0000-containerdisk-0", undefined],
    ["src:my.registry/my-image:my-tag,name:my-cd", "my-cd", undefined],
    ["src:my.registry/my-image:my-tag,bootorder:1", "vm-r0000-containerdisk-0", 1],
    ["src:my.registry/my-image:my-tag,name:my-cd,bootorder:2", "my-cd", 2],
  ])("--volume-containerdisk=%s", async (params, name, bootOrder) => {
    const vm = await manifest(`--volume-containerdisk=${params}`);
    expect(volumes(vm)).toEqual([{ name, containerDisk: { image: "my.registry/my-image:my-tag" } }]);
    expect(spec(vm).domain.devices.disks).toEqual(bootOrder ? [{ name, bootOrder }] : undefined);
  });

  it.each([
    ["src:my-pvc", "my-pvc", undefined],
    ["src:my-pvc,name:my-direct-pvc", "my-direct-pvc", undefined],
    ["src:my-pvc,name:my-direct-pvc,bootorder:2", "my-direct-pvc", 2],
  ])("--volume-pvc=%s", async (params, name, bootOrder) => {
    const vm = await manifest(`--volume-pvc=${params}`);
    expect(volumes(vm)).toEqual([{ name, persistentVolumeClaim: { claimName: "my-pvc" } }]);
    expect(spec(vm).domain.devices.disks).toEqual(bootOrder ? [{ name, bootOrder }] : undefined);
  });

  it.each([
    ["src:my-src", { configMap: { name: "my-src" } }],
    ["src:my-src,type:configMap", { configMap: { name: "my-src" } }],
    ["src:my-src,type:secret", { secret: { name: "my-src" } }],
  ])("--volume-sysprep=%s", async (params, sysprep) => {
    expect(volumes(await manifest(`--volume-sysprep=${params}`))).toEqual([{ name: "sysprepdisk", sysprep }]);
  });

  it.each([
    [
      "type:blank,size:256Mi",
      { source: { blank: {} }, storage: { resources: { requests: { storage: "256Mi" } } } },
    ],
    [
      "type:pvc,src:default/pvc",
      { source: { pvc: { name: "pvc", namespace: "default" } }, storage: { resources: {} } },
    ],
    [
      "type:ds,src:datasource",
      { sourceRef: { kind: "DataSource", name: "datasource" }, storage: { resources: {} } },
    ],
    [
      "type:ds,src:default/datasource,size:10Gi",
      {
        sourceRef: { kind: "DataSource", name: "datasource", namespace: "default" },
        storage: { resources: { requests: { storage: "10Gi" } } },
      },
    ],
    [
      "type:registry,size:1Gi,imagestream:my-is,certconfigmap:c,secretref:s",
      {
        source: { registry: { imageStream: "my-is", certConfigMap: "c", secretRef: "s" } },
        storage: { resources: { requests: { storage: "1Gi" } } },
      },
    ],
    [
      "type:http,size:1Gi,url:http://u,certconfigmap:c,secretref:s,secretextraheaders:a;b",
      {
        source: {
          http: { url: "http://u", certConfigMap: "c", secretRef: "s", secretExtraHeaders: ["a", "b"] },
        },
        storage: { resources: { requests: { storage: "1Gi" } } },
      },
    ],
  ])("--volume-import=%s", async (params, dvSpec) => {
    const vm = await manifest(`--volume-import=${params}`);
    expect(vm.spec.dataVolumeTemplates).toEqual([
      { metadata: { name: "imported-volume-r0001" }, spec: dvSpec },
    ]);
    expect(volumes(vm)).toEqual([
      { name: "imported-volume-r0001", dataVolume: { name: "imported-volume-r0001" } },
    ]);
  });
});

describe("cloud-init", () => {
  const GA_RUNCMD = "runcmd:\n  - [ setsebool, -P, 'virt_qemu_ga_manage_ssh', 'on' ]";

  it.each([
    [[], "cloudInitNoCloud"],
    [["--cloud-init=nocloud"], "cloudInitNoCloud"],
    [["--cloud-init=ConfigDrive"], "cloudInitConfigDrive"],
  ])("%j puts the generated config in %s", async (extra, kind) => {
    const vm = await manifest("--user=my-user", "--ssh-key=k1,k2", "--ssh-key=k3", ...extra);
    expect(volumes(vm)).toHaveLength(1);
    expect(userData(vm, kind)).toBe(
      "#cloud-config\nuser: my-user\nssh_authorized_keys:\n  - k1\n  - k2\n  - k3",
    );
  });

  it("reads the password from the file, trimmed", async () => {
    const result = await run([`--password-file=${PASSWORD_FILE}`]);
    expect(userData(parse(result.stdout) as Manifest)).toBe(
      "#cloud-config\npassword: s3cret\nchpasswd: { expire: False }",
    );
  });

  it("--ga-manage-ssh lets the guest agent write keys", async () => {
    expect(userData(await manifest("--ga-manage-ssh"))).toBe(`#cloud-config\n${GA_RUNCMD}`);
  });

  it.each([
    [["--cloud-init=none", "--ga-manage-ssh"], true],
    [["--ga-manage-ssh=false"], false],
  ])("no data source for %j", async (args, warned) => {
    const result = await run(args);
    expect(volumes(parse(result.stdout) as Manifest)).toEqual([]);
    expect(result.stderr).toBe(
      warned
        ? "WARNING: --cloud-init: was set to none, not creating a data source although other cloud-init options were set"
        : "",
    );
  });

  it.each([
    [[], "cloudInitNoCloud"],
    [["--cloud-init=configdrive"], "cloudInitConfigDrive"],
  ])("the given user and network data, base64 as given: %j", async (extra, kind) => {
    const vm = await manifest("--cloud-init-user-data=dXNlcg==", "--cloud-init-network-data=bmV0", ...extra);
    expect(volumes(vm)).toEqual([
      { name: "cloudinitdisk", [kind]: { userDataBase64: "dXNlcg==", networkDataBase64: "bmV0" } },
    ]);
  });

  it("a generated user data with the given network data", async () => {
    const vm = await manifest("--user=my-user", "--cloud-init-network-data=bmV0");
    expect(volumes(vm)).toEqual([
      {
        name: "cloudinitdisk",
        cloudInitNoCloud: { userData: "#cloud-config\nuser: my-user", networkDataBase64: "bmV0" },
      },
    ]);
  });
});

describe("access credentials", () => {
  const gaKeys = {
    sshPublicKey: {
      source: { secret: { secretName: "my-keys" } },
      propagationMethod: { qemuGuestAgent: { users: ["myuser"] } },
    },
  };

  it.each([
    { params: "src:my-keys,user:myuser", extra: [], data: "#cloud-config\nruncmd:" },
    {
      params: "type:ssh,src:my-keys,method:ga",
      extra: ["--user=myuser"],
      data: "#cloud-config\nuser: myuser\nruncmd:",
    },
    {
      params: "type:ssh,src:my-keys",
      extra: ["--user=myuser", "--cloud-init=configdrive"],
      data: "#cloud-config\nuser: myuser\nruncmd:",
    },
    { params: "src:my-keys,user:myuser", extra: ["--cloud-init=none"], data: undefined },
    { params: "src:my-keys,user:myuser", extra: ["--ga-manage-ssh=false"], data: undefined },
    {
      params: "src:my-keys",
      extra: ["--user=myuser", "--ga-manage-ssh=false"],
      data: "#cloud-config\nuser: myuser",
    },
  ])("ssh keys through the guest agent: $params $extra", async ({ params, extra, data }) => {
    const result = await run([`--access-cred=${params}`, ...extra]);
    const vm = parse(result.stdout) as Manifest;
    expect(spec(vm).accessCredentials).toEqual([gaKeys]);
    const written = userData(vm) ?? userData(vm, "cloudInitConfigDrive");
    if (data === undefined) expect(written).toBeUndefined();
    else expect(written?.startsWith(data)).toBe(true);
  });

  it.each([
    ["src:my-keys,method:nocloud", [], "cloudInitNoCloud", { noCloud: {} }],
    ["type:ssh,src:my-keys,method:nocloud", ["--cloud-init=nocloud"], "cloudInitNoCloud", { noCloud: {} }],
    ["src:my-keys,method:configdrive", [], "cloudInitConfigDrive", { configDrive: {} }],
  ])("ssh keys through cloud-init: %s %j", async (params, extra, kind, propagationMethod) => {
    const vm = await manifest(`--access-cred=${params}`, ...extra);
    expect(spec(vm).accessCredentials).toEqual([
      { sshPublicKey: { source: { secret: { secretName: "my-keys" } }, propagationMethod } },
    ]);
    // The data source is asked for, even with only the header in it.
    expect(userData(vm, kind)).toBe("#cloud-config");
  });

  it.each(["type:password,src:my-pws", "type:password,src:my-pws,method:ga"])(
    "a password: %s",
    async (params) => {
      const vm = await manifest(`--access-cred=${params}`);
      expect(spec(vm).accessCredentials).toEqual([
        {
          userPassword: {
            source: { secret: { secretName: "my-pws" } },
            propagationMethod: { qemuGuestAgent: {} },
          },
        },
      ]);
      expect(volumes(vm)).toEqual([]);
    },
  );
});

describe("refusals carry upstream's words", () => {
  const DNS1123 =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
  const LONG_NAME = "somanycharactersthatthedisksnameislooooongerthantheallowedlength";
  const flag = (name: string, message: string) => `failed to parse "--${name}" flag: ${message}`;
  const commonParams = (name: string, valid: string) => [
    [[`--${name}=`], flag(name, "params may not be empty")],
    [[`--${name}=test=test`], flag(name, "params need to have at least one colon: test=test")],
    [[`--${name}=test:test`], flag(name, "unknown param(s): test:test")],
    [
      [`--${name}=${valid},name:name.with.dot`],
      flag(name, 'invalid name "name.with.dot": must not contain dots'),
    ],
    [
      [`--${name}=${valid},name:${LONG_NAME}`],
      flag(name, `invalid name "${LONG_NAME}": must be no more than 63 characters`),
    ],
    [[`--${name}=${valid},name:NOTALLOWED`], flag(name, `invalid name "NOTALLOWED": ${DNS1123}`)],
    [[`--${name}=${valid},name:-notallowed`], flag(name, `invalid name "-notallowed": ${DNS1123}`)],
  ];
  const bootOrderParams = (name: string, valid: string, reported = name) => [
    [
      [`--${name}=bootorder:10Gu`],
      flag(reported, 'failed to parse param "bootorder": strconv.ParseUint: parsing "10Gu": invalid syntax'),
    ],
    [
      [`--${name}=bootorder:-1`],
      flag(reported, 'failed to parse param "bootorder": strconv.ParseUint: parsing "-1": invalid syntax'),
    ],
    [[`--${name}=${valid},bootorder:0`], flag(reported, "bootorder must be greater than 0")],
  ];

  it.each([
    [
      ["--name=name.with.dot", "--volume-containerdisk=src:x"],
      flag("volume-containerdisk", 'invalid name "name.with.dot-containerdisk-0": must not contain dots'),
    ],
    [
      ["--run-strategy=true"],
      flag(
        "run-strategy",
        'invalid run strategy "true", supported values are: Always, Manual, Halted, Once, RerunOnFailure',
      ),
    ],
    [
      ["--memory=abc"],
      flag(
        "memory",
        "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
      ),
    ],
    [["--memory=512Gu"], flag("memory", "unable to parse quantity's suffix")],
    [
      ["--instancetype=madethisup/my-instancetype"],
      flag(
        "instancetype",
        'invalid instancetype kind "madethisup", supported values are: virtualmachineinstancetype, virtualmachineclusterinstancetype',
      ),
    ],
    [
      ["--instancetype=virtualmachineinstancetype/my-instancetype/madethisup"],
      flag("instancetype", "invalid count 2 of slashes in prefix/name"),
    ],
    [["--instancetype=virtualmachineinstancetype/"], flag("instancetype", "name cannot be empty")],
    [
      ["--preference=madethisup/my-preference"],
      flag(
        "preference",
        'invalid preference kind "madethisup", supported values are: virtualmachinepreference, virtualmachineclusterpreference',
      ),
    ],
    [["--infer-instancetype"], "at least one volume is needed to infer an instance type or preference"],
    [["--infer-preference"], "at least one volume is needed to infer an instance type or preference"],
    [["--infer-instancetype-from=does-not-exist"], 'there is no volume with name "does-not-exist"'],
    [["--infer-preference-from=does-not-exist"], 'there is no volume with name "does-not-exist"'],
    [
      ["--infer-instancetype", "--volume-containerdisk=src:x"],
      "inference of instancetype or preference works only with datasources, datavolumes or pvcs",
    ],
    [
      ["--infer-preference", "--volume-import=type:http,size:256Mi,url:http://url.com"],
      "this datavolume is not valid to infer an instancetype or preference from (source needs to be PVC, Registry or Snapshot, sourceRef needs to be DataSource)",
    ],
    [
      ["--memory=1Gi", "--instancetype=it"],
      "if any flags in the group [memory instancetype infer-instancetype infer-instancetype-from] are set none of the others can be; [instancetype memory] were all set",
    ],
    [
      ["--infer-preference", "--infer-preference-from=v", "--preference=p"],
      "if any flags in the group [preference infer-preference infer-preference-from] are set none of the others can be; [infer-preference infer-preference-from preference] were all set",
    ],
    ...["user", "password-file", "ssh-key", "ga-manage-ssh"].map((other) => [
      ["--cloud-init-user-data=test", `--${other}=true`],
      `if any flags in the group [cloud-init-user-data ${other}] are set none of the others can be; [cloud-init-user-data ${other}] were all set`,
    ]),
    ...commonParams("volume-containerdisk", "src:x"),
    [["--volume-containerdisk=name:test"], flag("volume-containerdisk", "src must be specified")],
    ...bootOrderParams("volume-containerdisk", "src:x"),
    ...commonParams("volume-pvc", "src:my-pvc"),
    [["--volume-pvc=src:my-ns/"], flag("volume-pvc", "src invalid: name cannot be empty")],
    [
      ["--volume-pvc=src:my-ns/my-pvc/madethisup"],
      flag("volume-pvc", "src invalid: invalid count 2 of slashes in prefix/name"),
    ],
    [
      ["--volume-pvc=src:my-ns/my-pvc"],
      flag("volume-pvc", 'not allowed to specify namespace of pvc "my-pvc"'),
    ],
    ...bootOrderParams("volume-pvc", "src:my-pvc"),
    [["--volume-datasource="], flag("volume-import", "params may not be empty")],
    [
      ["--volume-datasource=size:10Gu"],
      flag("volume-import", 'failed to parse param "size": unable to parse quantity\'s suffix'),
    ],
    ...bootOrderParams("volume-datasource", "src:my-ds", "volume-import"),
    [["--volume-clone-pvc=src:my-pvc"], flag("volume-import", 'namespace of pvc "my-pvc" must be specified')],
    [["--volume-blank=name:my-blank"], flag("volume-import", "size must be specified")],
    ...commonParams("volume-import", "type:blank,size:256Mi").slice(3),
    [["--volume-import=size:256Mi"], flag("volume-import", "type must be specified")],
    [
      ["--volume-import=type:madeup"],
      flag("volume-import", 'invalid volume import type "madeup", see help for supported values'),
    ],
    [
      ["--volume-import=type:blank,size:256Mi,test:test"],
      flag("volume-import", "unknown param(s): test:test"),
    ],
    [
      ["--volume-import=type:gcs,size:256Mi"],
      flag("volume-import", "url is required with gcs volume source"),
    ],
    [["--volume-import=type:http,url:http://url.com"], flag("volume-import", "size must be specified")],
    [
      ["--volume-import=type:imageio,url:http://imageio.com,size:256Mi"],
      flag("volume-import", "url and diskid are both required with imageio volume source"),
    ],
    [
      ["--volume-import=type:pvc,size:256Mi,src:/my-pvc"],
      flag("volume-import", 'namespace of pvc "my-pvc" must be specified'),
    ],
    [
      ["--volume-import=type:snapshot,size:256Mi,src:default/"],
      flag("volume-import", "src invalid: name cannot be empty"),
    ],
    [
      ["--volume-import=type:snapshot,size:256Mi,src:my-snapshot"],
      flag("volume-import", 'namespace of snapshot "my-snapshot" must be specified'),
    ],
    [["--volume-import=type:s3,size:256Mi"], flag("volume-import", "url is required with s3 volume source")],
    [
      ["--volume-import=type:registry,size:256Mi,pullmethod:invalid,imagestream:my-image"],
      flag("volume-import", "pullmethod must be set to pod or node"),
    ],
    [
      ["--volume-import=type:registry,size:256Mi,imagestream:my-image,url:http://url.com"],
      flag("volume-import", "exactly one of url or imagestream must be defined"),
    ],
    [
      ["--volume-import=type:registry,size:256Mi"],
      flag("volume-import", "exactly one of url or imagestream must be defined"),
    ],
    ...["url", "uuid", "thumbprint", "secretref", "backingfile"].map((missing) => [
      [
        `--volume-import=type:vddk,size:256Mi,${["backingfile:b", "secretref:s", "thumbprint:t", "url:http://u", "uuid:u"].filter((p) => !p.startsWith(missing)).join(",")}`,
      ],
      flag("volume-import", `${missing} is required with vddk volume source`),
    ]),
    [["--volume-import=type:ds,size:256Mi"], flag("volume-import", "src must be specified")],
    [["--volume-import=type:pvc,name:my-ns/"], flag("volume-import", "src must be specified")],
    ...bootOrderParams("volume-import", "type:blank,size:256Mi").slice(2),
    [["--volume-sysprep="], flag("volume-sysprep", "params may not be empty")],
    [["--volume-sysprep=type:configMap"], flag("volume-sysprep", "src must be specified")],
    [
      ["--volume-sysprep=type:madeup,src:my-src"],
      flag("volume-sysprep", 'invalid sysprep source type "madeup", supported values are: configmap, secret'),
    ],
    [
      ["--volume-sysprep=src:my-ns/my-src"],
      flag("volume-sysprep", 'not allowed to specify namespace of configmap or secret "my-src"'),
    ],
    [
      ["--volume-containerdisk=src:x,name:my-name", "--volume-containerdisk=src:x,name:my-name"],
      flag("volume-containerdisk", 'there is already a volume with name "my-name"'),
    ],
    [
      ["--volume-pvc=src:my-pvc,name:my-name", "--volume-containerdisk=src:x,name:my-name"],
      flag("volume-pvc", 'there is already a volume with name "my-name"'),
    ],
    [
      ["--volume-pvc=src:my-pvc,name:my-name", "--volume-import=type:blank,size:10Gi,name:my-name"],
      flag("volume-import", 'there is already a volume with name "my-name"'),
    ],
    [
      ["--volume-import=type:ds,src:my-ds,name:cloudinitdisk", "--cloud-init-network-data=eA=="],
      'there is already a volume with name "cloudinitdisk"',
    ],
    [
      ["--volume-import=type:pvc,src:my-ns/my-pvc,name:sysprepdisk", "--volume-sysprep=src:my-src"],
      flag("volume-sysprep", 'there is already a volume with name "sysprepdisk"'),
    ],
    [
      ["--volume-containerdisk=src:x,bootorder:1", "--volume-import=type:ds,src:my-ds,bootorder:1"],
      flag("volume-import", "bootorder 1 was specified multiple times"),
    ],
    [
      ["--password-file=testpath/does/not/exist"],
      flag("password-file", "open testpath/does/not/exist: no such file or directory"),
    ],
    [
      ["--cloud-init=true"],
      flag(
        "cloud-init",
        'invalid cloud-init data source type "true", supported values are: nocloud, configdrive, none',
      ),
    ],
    [["--access-cred="], flag("access-cred", "params may not be empty")],
    [["--access-cred=type:ssh"], flag("access-cred", "src must be specified")],
    [["--access-cred=src:my-ns/"], flag("access-cred", "src invalid: name cannot be empty")],
    [
      ["--access-cred=src:my-ns/my-src"],
      flag("access-cred", 'not allowed to specify namespace of secret "my-src"'),
    ],
    [
      ["--access-cred=type:madeup,src:my-src"],
      flag("access-cred", 'invalid access credential type "madeup", supported values are: ssh, password'),
    ],
    [
      ["--access-cred=type:ssh,src:my-src,method:madeup"],
      flag(
        "access-cred",
        'invalid access credentials ssh method "madeup", supported values are: ga, nocloud, configdrive',
      ),
    ],
    [
      ["--access-cred=type:ssh,src:my-src,method:ga"],
      flag(
        "access-cred",
        'user must be specified with access credential ssh method ga ("--user" flag or param "user")',
      ),
    ],
    [
      ["--access-cred=type:ssh,src:my-src,method:nocloud,user:myuser"],
      flag("access-cred", "user cannot be specified with selected access credential type and method"),
    ],
    [
      ["--access-cred=type:password,src:my-src,method:madeup"],
      flag("access-cred", 'invalid access credentials password method "madeup", supported values are: ga'),
    ],
    [
      ["--access-cred=type:password,src:my-src,user:myuser"],
      flag("access-cred", "user cannot be specified with selected access credential type and method"),
    ],
    ...[
      ["nocloud", "configdrive"],
      ["nocloud", "none"],
      ["configdrive", "nocloud"],
      ["configdrive", "none"],
    ].map(([method, cloudInit]) => [
      [`--access-cred=src:my-src,method:${method}`, `--cloud-init=${cloudInit}`],
      flag(
        "access-cred",
        `method param and value passed to --cloud-init have to match: ${method} vs ${cloudInit}`,
      ),
    ]),
  ] as [string[], string][])("%j", async (args, message) => {
    const result = await run(args);
    expect([result.code, result.stdout]).toEqual([1, ""]);
    // The refusal is the last line; only the deprecation notices and the password warning come before.
    const lines = result.stderr.split("\n");
    expect(lines.slice(-2)).toEqual([message, ""]);
    for (const line of lines.slice(0, -2))
      expect(line).toMatch(/^(Flag --volume-\S+ has been deprecated|WARNING: --password-file)/);
  });

  it.each([
    [
      ["--termination-grace-period=1.23"],
      'invalid argument "1.23" for "--termination-grace-period" flag: strconv.ParseInt: parsing "1.23": invalid syntax',
    ],
    [
      ["--ga-manage-ssh=not-a-bool"],
      'invalid argument "not-a-bool" for "--ga-manage-ssh" flag: strconv.ParseBool: parsing "not-a-bool": invalid syntax',
    ],
    [
      ["--infer-instancetype=not-a-bool"],
      'invalid argument "not-a-bool" for "--infer-instancetype" flag: strconv.ParseBool: parsing "not-a-bool": invalid syntax',
    ],
    [["extra"], 'unknown command "extra" for "virtctl create vm"'],
  ])("invocation mistakes: %j", async (args, message) => {
    const result = await run(args);
    expect(result).toEqual({
      code: 1,
      stdout: "",
      stderr: `${message}\nRun 'virtctl create vm --help' for usage.\n`,
    });
  });
});
