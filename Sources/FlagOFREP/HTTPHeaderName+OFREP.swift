import HTTPServer

extension HTTPHeaderName {
    /// `X-API-Key`: OFREP's second security scheme (`specs/ofrep/openapi.yaml`, `ApiKeyAuth`).
    @inlinable public static var apiKey: Self { "X-API-Key" }
}
