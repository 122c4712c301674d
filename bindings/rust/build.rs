// Finds libtessera for linking: $TESSERA_LIB_DIR, then pkg-config, then the repository's
// build tree (../../build/lib); the directory is also recorded as the run path of tests.
use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

fn from_pkg_config() -> Option<PathBuf> {
    let out = Command::new("pkg-config")
        .args(["--libs-only-L", "tessera"])
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?;
    text.split_whitespace()
        .find_map(|flag| flag.strip_prefix("-L"))
        .map(PathBuf::from)
}

fn main() {
    println!("cargo:rerun-if-env-changed=TESSERA_LIB_DIR");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_PATH");
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let build_tree = manifest.join("../../build/lib");
    let dir = env::var_os("TESSERA_LIB_DIR")
        .map(PathBuf::from)
        .or_else(from_pkg_config)
        .or_else(|| {
            build_tree
                .join("libtessera.so")
                .exists()
                .then_some(build_tree)
        });
    match dir {
        Some(dir) => {
            let dir = dir.canonicalize().unwrap_or(dir);
            if !Path::new(&dir).join("libtessera.so").exists() {
                println!("cargo:warning=no libtessera.so in {}", dir.display());
            }
            println!("cargo:rustc-link-search=native={}", dir.display());
            // Tests and examples run without LD_LIBRARY_PATH.
            println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir.display());
        }
        None => println!(
            "cargo:warning=libtessera not found: set TESSERA_LIB_DIR to the folder of libtessera.so \
             (or install it where pkg-config finds tessera.pc); trying the system paths"
        ),
    }
    println!("cargo:rustc-link-lib=dylib=tessera");
}
