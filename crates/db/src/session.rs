//! One database connection as Hammer uses it: its two procedures. Each driver implements it;
//! the runner drives any of them the same way.

/// A failed call, by kind (`busy`, `deadlock`, `timeout`, `connection`, ...), counted rather
/// than fatal: a run goes on through them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallError {
    pub kind: String,
    pub message: String,
}

#[cfg(feature = "net")]
/// The wait before a session's next attempt to reconnect while its server is away: none at
/// first, then 10 ms doubling to half a second. Without it, a session whose server is down
/// fails a call, retries at once and fails again, thousands of times a second: the failed-call
/// count measures the loop instead of the outage, and the CPU spins. Half a second at most, so
/// a session sees its server back soon after it returns and ends soon after its run does.
#[derive(Clone, Copy, Debug, Default)]
pub struct Backoff {
    next: std::time::Duration,
}

#[cfg(feature = "net")]
impl Backoff {
    const FIRST: std::time::Duration = std::time::Duration::from_millis(10);
    const MOST: std::time::Duration = std::time::Duration::from_millis(500);

    /// Waits as long as the attempts so far call for.
    pub async fn wait(&self) {
        if !self.next.is_zero() {
            tokio::time::sleep(self.next).await;
        }
    }

    /// An attempt failed: the next waits longer.
    pub fn failed(&mut self) {
        self.next = (self.next * 2).clamp(Self::FIRST, Self::MOST);
    }
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

#[cfg(all(test, feature = "net"))]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn reconnecting_waits_longer_after_each_failure_up_to_half_a_second() {
        let mut b = Backoff::default();
        assert_eq!(b.next, Duration::ZERO, "the first attempt waits for nothing");
        let waits: Vec<u64> = (0..8)
            .map(|_| {
                b.failed();
                b.next.as_millis() as u64
            })
            .collect();
        assert_eq!(waits, [10, 20, 40, 80, 160, 320, 500, 500]);
    }
}
