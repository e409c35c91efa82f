// Node-API link settings for the addon (napi-build).
fn main() {
    napi_build::setup();
}
