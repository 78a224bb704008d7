//! Why a connection could not be made; messages name the database with any password masked.

#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    /// A refused or failed connection, with the cause and what to change.
    #[error("{db}: cannot connect: {cause}; {hint}")]
    Refused { db: String, cause: String, hint: String },
    /// This build of spindle lacks what the database needs (a driver, TLS).
    #[error(
        "{db}: this spindle was built without {what} (cargo feature `{feature}`); build it with `cargo build --release --features {feature}`, or with the default features"
    )]
    NotBuilt { db: String, what: &'static str, feature: &'static str },
}
