// /docs: Swagger UI over this service's own /openapi.json, read-only (no "try it out": the page holds no key).
// Swagger UI 5 warns about any jsonSchemaDialect other than the OpenAPI base dialect; ours names JSON Schema
// 2020-12 itself, which is what the base dialect builds on, so the field is left out of what is shown.
fetch('/openapi.json')
  .then((r) => r.json())
  .then((spec) => {
    delete spec.jsonSchemaDialect;
    // eslint-disable-next-line no-undef
    SwaggerUIBundle({
      spec,
      dom_id: '#swagger-ui',
      deepLinking: true,
      supportedSubmitMethods: [],
      defaultModelsExpandDepth: 0,
      docExpansion: 'list',
    });
    document.body.dataset.status = 'ready';
  })
  .catch((err) => {
    document.getElementById('swagger-ui').textContent = `Could not read /openapi.json: ${err}`;
    document.body.dataset.status = 'error';
  });
