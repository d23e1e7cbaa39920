/**
 * The trust an `agent-user emulator --env-out` file hands a shell adds the
 * emulator's certificate to what the shell trusted, never replaces it: a
 * shell behind a TLS-inspecting proxy (NODE_EXTRA_CA_CERTS naming its
 * certificate) still reaches the proxy after sourcing the file, and reaches
 * the emulator too.
 */
import { execFile } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { rootCertificates } from "node:tls";
import { promisify } from "node:util";
import { selfSignedCertificate } from "../../emulator/certificate";
import { trustBundle } from "../../probes/trust-bundle";
import { runCli, scratchDir } from "../harness";

const execFileAsync = promisify(execFile);
const scratch = scratchDir();
afterAll(() => scratch.remove());

const EMULATOR = selfSignedCertificate({ commonName: "emulator" }).certificatePem;
const PROXY = selfSignedCertificate({ commonName: "inspecting proxy", hosts: ["127.0.0.1"] });
const file = (name: string, text: string) => {
  const path = join(scratch.dir, name);
  writeFileSync(path, text);
  return path;
};
const certificates = (pem: string) => pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];

describe("trustBundle", () => {
  it("is the system's roots and the emulator's certificate when the shell names no trust", () => {
    const system = file("system.pem", `${rootCertificates[0]}\n${rootCertificates[1]}\n`);
    const { text, sources } = trustBundle(EMULATOR, {}, ["/nonexistent/bundle.pem", system]);
    expect(sources).toEqual([system]);
    expect(certificates(text)).toEqual([rootCertificates[0], rootCertificates[1], EMULATOR.trim()]);
  });

  it("is Node's own roots and the emulator's where no system bundle file exists", () => {
    const { text, sources } = trustBundle(EMULATOR, {}, ["/nonexistent/bundle.pem"]);
    expect(sources).toEqual(["Node.js's root certificates"]);
    expect(certificates(text)).toHaveLength(rootCertificates.length + 1);
  });

  it("keeps SSL_CERT_FILE's roots in place of the system's, and adds NODE_EXTRA_CA_CERTS's certificates", () => {
    const roots = file("roots.pem", `${rootCertificates[2]}\n`);
    const proxy = file("proxy.pem", PROXY.certificatePem);
    const system = file("system-unused.pem", `${rootCertificates[3]}\n`);
    const { text, sources } = trustBundle(EMULATOR, { SSL_CERT_FILE: roots, NODE_EXTRA_CA_CERTS: proxy }, [system]);
    expect(sources).toEqual([roots, proxy]);
    expect(certificates(text)).toEqual([rootCertificates[2], PROXY.certificatePem.trim(), EMULATOR.trim()]);
  });

  it("made again in a shell that sourced an earlier one, keeps that shell's trust once and drops the earlier emulator's certificate", () => {
    const proxy = file("proxy-again.pem", PROXY.certificatePem);
    const system = file("system-again.pem", `${rootCertificates[4]}\n`);
    const first = file("first-bundle.pem", trustBundle(selfSignedCertificate({ commonName: "earlier emulator" }).certificatePem, { NODE_EXTRA_CA_CERTS: proxy }, [system]).text);
    const again = trustBundle(EMULATOR, { SSL_CERT_FILE: first, NODE_EXTRA_CA_CERTS: first }, [system]);
    expect(certificates(again.text)).toEqual([rootCertificates[4], PROXY.certificatePem.trim(), EMULATOR.trim()]);
  });

  it("takes a variable that names a file no longer there as unset, and refuses one it cannot read as a bundle", () => {
    const system = file("system-gone.pem", `${rootCertificates[5]}\n`);
    expect(trustBundle(EMULATOR, { SSL_CERT_FILE: join(scratch.dir, "gone.pem") }, [system]).sources).toEqual([system]);
    expect(() => trustBundle(EMULATOR, { NODE_EXTRA_CA_CERTS: scratch.dir }, [system])).toThrow(/--env-out: cannot read the certificates NODE_EXTRA_CA_CERTS names, .*: .*\n?/);
  });
});

describe("agent-user emulator --env-out, in a shell behind a TLS-inspecting proxy", () => {
  it("keeps the proxy's certificate trusted beside the emulator's once the shell sources the file", async () => {
    const proxyCa = file("corporate-proxy.pem", PROXY.certificatePem);
    const proxy = createServer({ key: PROXY.privateKeyPem, cert: PROXY.certificatePem }, (_req, res) => res.end("through the proxy"));
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    const envFile = join(scratch.dir, "proxy.env");
    const outputs = join(scratch.dir, "proxy-outputs.json");
    const running = runCli(["emulator", "--env-out", envFile, "--outputs", outputs], { NODE_EXTRA_CA_CERTS: proxyCa }, scratch.dir);
    try {
      for (let i = 0; i < 400 && !existsSync(outputs); i++) await new Promise((r) => setTimeout(r, 25));
      const proxyUrl = `https://127.0.0.1:${(proxy.address() as AddressInfo).port}/`;
      const probe = `Promise.all([fetch("${proxyUrl}").then((r) => r.text()), fetch("https://" + process.env.ARM_METADATA_HOSTNAME + "/metadata/endpoints?api-version=2022-09-01").then((r) => r.status)]).then((a) => console.log(JSON.stringify(a)))`;
      // Asynchronous: the emulator answers from this process.
      const shell = await execFileAsync("bash", ["-c", `export NODE_EXTRA_CA_CERTS='${proxyCa}'; set -a; . "${envFile}"; set +a; exec "${process.execPath}" -e '${probe}'`], { encoding: "utf8", timeout: 20_000 });
      expect({ out: JSON.parse(shell.stdout) as unknown, stderr: shell.stderr }).toEqual({ out: ["through the proxy", 200], stderr: "" });
    } finally {
      process.emit("SIGTERM");
      proxy.close();
    }
    expect((await running).code).toBe(0);
  });
});
