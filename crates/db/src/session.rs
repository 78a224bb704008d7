//! One database connection as Hammer uses it: its two procedures. Each driver implements it;
//! the runner drives any of them the same way.

/// A failed call, by kind (`busy`, `deadlock`, `timeout`, `connection`, ...), counted rather
/// than fatal: a run goes on through them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallError {
    pub kind: String,
    pub message: String,
}

pub trait Session {
    /// `GetAccount`: read one row by CardNo.
    fn get_account(&mut self, card_no: &str) -> Result<(), CallError>;
    /// `UpdateAccount`: add to one row's Amount and stamp its ChargeDate, in a transaction.
    fn update_account(&mut self, card_no: &str, amount: i64) -> Result<(), CallError>;
}

/// The same two procedures on a network connection, as async calls, so thousands of
/// sessions can share a few threads.
pub trait AsyncSession: Send {
    fn get_account(&mut self, card_no: &str) -> impl std::future::Future<Output = Result<(), CallError>> + Send;
    fn update_account(
        &mut self,
        card_no: &str,
        amount: i64,
    ) -> impl std::future::Future<Output = Result<(), CallError>> + Send;
}

/// How many more connections a server takes: its limit, the connections it keeps for
/// superusers, and those in use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnectionRoom {
    pub max: u64,
    pub reserved: u64,
    pub in_use: u64,
}

impl ConnectionRoom {
    pub fn free(&self) -> u64 {
        self.max.saturating_sub(self.reserved).saturating_sub(self.in_use)
    }
}
