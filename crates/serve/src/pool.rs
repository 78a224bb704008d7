//! The opened stores, lent one to a request for as long as it reads: a request waits for a
//! free one, and a lease gives its store back when dropped, so a request that panics or whose
//! client left still returns it.

use std::ops::{Deref, DerefMut};
use std::sync::{Arc, Mutex, PoisonError};
use tokio::sync::Notify;

pub(crate) struct Pool<T> {
    free: Mutex<Vec<T>>,
    returned: Notify,
}

/// One of the pool's items, lent until dropped.
pub(crate) struct Lease<T> {
    /// `Some` until the lease is dropped.
    item: Option<T>,
    pool: Arc<Pool<T>>,
}

impl<T> Pool<T> {
    pub(crate) fn new(items: Vec<T>) -> Arc<Pool<T>> {
        Arc::new(Pool { free: Mutex::new(items), returned: Notify::new() })
    }

    /// A free item, once there is one.
    pub(crate) async fn take(self: &Arc<Self>) -> Lease<T> {
        loop {
            // Asked for before looking: an item returned in between leaves its notice stored
            // (notify_one keeps one when nobody waits), so the wait below ends at once.
            let returned = self.returned.notified();
            if let Some(item) = self.free.lock().unwrap_or_else(PoisonError::into_inner).pop() {
                return Lease { item: Some(item), pool: Arc::clone(self) };
            }
            returned.await;
        }
    }
}

impl<T> Drop for Lease<T> {
    fn drop(&mut self) {
        if let Some(item) = self.item.take() {
            self.pool.free.lock().unwrap_or_else(PoisonError::into_inner).push(item);
            self.pool.returned.notify_one();
        }
    }
}

impl<T> Deref for Lease<T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.item.as_ref().expect("a lease holds its item until it is dropped")
    }
}

impl<T> DerefMut for Lease<T> {
    fn deref_mut(&mut self) -> &mut T {
        self.item.as_mut().expect("a lease holds its item until it is dropped")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::future::Future;
    use std::pin::pin;
    use std::task::{Context, Poll, Waker};

    fn poll<F: Future>(f: std::pin::Pin<&mut F>) -> Poll<F::Output> {
        f.poll(&mut Context::from_waker(Waker::noop()))
    }

    #[test]
    fn a_request_waits_until_a_lease_gives_its_item_back() {
        let pool = Pool::new(vec![7]);
        let Poll::Ready(first) = poll(pin!(pool.take())) else { panic!("one item is free") };
        assert_eq!(*first, 7);
        let mut second = pin!(pool.take());
        assert!(poll(second.as_mut()).is_pending(), "none free while it is lent");
        drop(first);
        let Poll::Ready(mut second) = poll(second.as_mut()) else { panic!("the item came back") };
        *second += 1;
        drop(second);
        let Poll::Ready(third) = poll(pin!(pool.take())) else { panic!("free again") };
        assert_eq!(*third, 8, "the same item, as the last lease left it");
    }
}
