// Bundled by bundle.test.ts like a component binary: reads every data file the components read beside their
// modules (moduleDataFiles), from inside a bundle, and prints what it found as JSON.
import { PROTO_FILES, serviceDefinition, type ServiceName } from "../../../pkg/handler-launcher-com/proto.js";
import { devicePluginApi } from "../../../pkg/virt-handler/device-manager/deviceplugin/v1beta1/api.js";
import { findSwaggerFile, loadSwagger } from "../../../pkg/virt-operator/util/swagger.js";
import { get, packageRoot } from "../../../pkg/version/version.js";

const services = Object.keys(PROTO_FILES).map((name) => ({
  name,
  methods: Object.keys(serviceDefinition(name as ServiceName)).length,
}));
const devicePlugin = Object.keys(devicePluginApi()).sort();
const swagger = loadSwagger() as { definitions?: Record<string, unknown> };
console.log(
  JSON.stringify({
    services,
    devicePlugin,
    swaggerFile: findSwaggerFile(),
    definitions: Object.keys(swagger.definitions ?? {}).length,
    packageRoot: packageRoot().root,
    gitVersion: get().gitVersion,
  }),
);
