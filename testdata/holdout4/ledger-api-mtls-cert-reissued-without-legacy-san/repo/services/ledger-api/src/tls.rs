use std::{path::Path, sync::Arc};

use rustls::server::WebPkiClientVerifier;
use rustls_pemfile::{certs, private_key};

/// Builds the mTLS server config from the cert-manager secret mounted at `dir`.
/// The watcher in main.rs calls this again when kubelet updates the files.
pub fn server_config(dir: &Path) -> anyhow::Result<Arc<rustls::ServerConfig>> {
    let chain = certs(&mut std::io::BufReader::new(std::fs::File::open(dir.join("tls.crt"))?))
        .collect::<Result<Vec<_>, _>>()?;
    let key = private_key(&mut std::io::BufReader::new(std::fs::File::open(dir.join("tls.key"))?))?
        .ok_or_else(|| anyhow::anyhow!("no private key in {}", dir.display()))?;
    let mut roots = rustls::RootCertStore::empty();
    for ca in certs(&mut std::io::BufReader::new(std::fs::File::open(dir.join("ca.crt"))?)) {
        roots.add(ca?)?;
    }
    let verifier = WebPkiClientVerifier::builder(Arc::new(roots)).build()?;
    let cfg = rustls::ServerConfig::builder()
        .with_client_cert_verifier(verifier)
        .with_single_cert(chain, key)?;
    Ok(Arc::new(cfg))
}
