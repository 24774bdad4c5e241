// Starts the vendored Swagger UI on /api/docs (a file, not inline: the pages' CSP allows no
// inline script). The schema's address comes from the page, as a data attribute.
window.addEventListener("DOMContentLoaded", function () {
  var box = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({
    url: box.dataset.schema,
    dom_id: "#swagger-ui",
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout"
  });
});
