use super::StoreArgs;
use clap::Args;

#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  spindle serve                         http://127.0.0.1:8088/ on this machine only\n  \
spindle serve --listen 0.0.0.0:8088    on the network, behind a generated token it prints"
)]
pub struct ServeArgs {
    /// The address to serve on; one other than loopback needs a token [default: 127.0.0.1:8088].
    #[arg(long, value_name = "ADDRESS:PORT")]
    pub listen: Option<String>,
    /// The token every request must carry (`?token=` once, then a cookie); without it on a
    /// non-loopback address, one is generated and printed [env: SPINDLE_SERVE_TOKEN].
    #[arg(long, value_name = "TOKEN")]
    pub token: Option<String>,
    #[command(flatten)]
    pub store: StoreArgs,
}
