use super::*;
use std::sync::Arc;
use std::time::Instant;

#[test]
fn tasks_wake_at_their_instants_never_before() {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let timer = Arc::new(Timer::start());
    let start = Instant::now();
    let tasks: Vec<_> = (0..300u64)
        .map(|i| {
            let timer = timer.clone();
            // Instants in no order, some already passed, several shared.
            let at = start + Duration::from_micros(i * 7919 % 50_000);
            rt.spawn(async move {
                for step in 0..3 {
                    let at = at + Duration::from_millis(step);
                    timer.sleep_until(at).await;
                    assert!(Instant::now() >= at, "task {i} woke early");
                }
            })
        })
        .collect();
    rt.block_on(async {
        for t in tasks {
            t.await.unwrap();
        }
    });
}

#[test]
fn an_earlier_wait_is_not_held_behind_a_later_one() {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let timer = Timer::start();
    let start = Instant::now();
    let late = start + Duration::from_secs(60);
    rt.block_on(async {
        let mut far = std::pin::pin!(timer.sleep_until(late));
        // Registers the far wait first.
        assert!(futures_util::poll!(far.as_mut()).is_pending());
        timer.sleep_until(start + Duration::from_millis(10)).await;
    });
    // Had the timer slept towards the far instant, this would be a minute from now; dropping
    // the timer does not wait for waits still queued.
    assert!(Instant::now() < late);
}
