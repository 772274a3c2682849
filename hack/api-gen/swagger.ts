// The API generator reads the reference through the same parser as the CRD generator.
export {
  parseReferenceDocument as parseSwagger,
  responseRefs,
  type ReferenceDocument as SwaggerDocument,
  type ReferenceSchema as SchemaNode,
} from "../../pkg/api/openapi-reference.js";
