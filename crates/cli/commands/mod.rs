//! One module per subcommand.

pub mod io;
pub mod profiles;
