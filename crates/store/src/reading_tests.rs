//! Reading many runs on each backend: pages sorted and cut by the database match the order
//! the listing's figures give, and every run is read once, oldest first, one at a time.

use crate::tests::each_backend;
use crate::*;
use spindle_model::fixtures::io_run;

#[test]
fn pages_in_any_order_and_runs_one_at_a_time_read_every_run_once() {
    for scratch in each_backend() {
        pages_and_runs_in(Store::open(&scratch.at).unwrap());
    }
}

fn pages_and_runs_in(mut store: Store) {
    // Rates that tie in pairs, so the tie-break by id counts; an imported-like run (no host)
    // is not among them, every latency here is recorded.
    let g = store.new_group(GroupKind::Repeat, "r", "2026-11-23T10:00:00Z").unwrap();
    let mut ids = Vec::new();
    for i in 0..23u32 {
        let rate = 100.0 + f64::from(i % 7) * 10.0;
        let place = Placement { group: (i % 5 == 0).then_some(g), point: None, repeat: i + 1 };
        let label = if i % 2 == 0 { "even" } else { "odd" };
        ids.push(
            store.save(&io_run(&[rate, rate], 100_000 + u64::from(i % 4) * 1000, &[("n", label)]), &place).unwrap(),
        );
    }
    let all = Filter::default();
    let listed = store.list(&all).unwrap();
    for (sort, ascending) in
        [(SortKey::Rate, false), (SortKey::Rate, true), (SortKey::P99, false), (SortKey::Mean, true)]
    {
        let q = PageQuery { filter: &all, hostname: None, sort, ascending };
        assert_eq!(store.count_page(&q).unwrap(), 23);
        let paged: Vec<i64> = (0..5).flat_map(|p| store.page(&q, p * 5, 5).unwrap()).map(|r| r.id).collect();
        let mut expected = listed.clone();
        expected.sort_by(|a, b| {
            let by = match sort {
                SortKey::Rate => a.iops.partial_cmp(&b.iops).unwrap(),
                SortKey::P99 => a.latency_p99_ns.cmp(&b.latency_p99_ns),
                _ => a.latency_mean_ns.partial_cmp(&b.latency_mean_ns).unwrap(),
            };
            let o = by.then(a.id.cmp(&b.id));
            if ascending { o } else { o.reverse() }
        });
        assert_eq!(paged, expected.iter().map(|r| r.id).collect::<Vec<_>>(), "{sort:?} ascending {ascending}");
    }
    let odd = Filter { labels: vec![("n".into(), "odd".into())], ..Filter::default() };
    let page =
        store.page(&PageQuery { filter: &odd, hostname: None, sort: SortKey::Id, ascending: false }, 0, 100).unwrap();
    assert_eq!(page.len(), 11);
    assert!(page.iter().all(|r| r.labels["n"] == "odd"), "each run with its labels");
    let elsewhere = PageQuery { filter: &all, hostname: Some("no such host"), sort: SortKey::Id, ascending: true };
    assert_eq!(store.count_page(&elsewhere).unwrap(), 0);

    let mut read = Vec::new();
    store
        .each_run(&odd, |r| {
            assert_eq!(r.record.labels["n"], "odd");
            read.push(r.summary.id);
            Ok::<(), StoreError>(())
        })
        .unwrap();
    assert_eq!(read, page.iter().rev().map(|r| r.id).collect::<Vec<_>>(), "every odd run once, oldest first");
    assert_eq!(store.id_span(&odd).unwrap(), (11, Some((ids[1], ids[21]))));
    assert_eq!(store.group_ids(&all).unwrap(), vec![g]);
    assert_eq!(store.id_span(&Filter { ids: vec![(900, 990)], ..Filter::default() }).unwrap(), (0, None));
}
