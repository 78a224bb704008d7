//! The order of an A/B experiment and the pairing of its runs. Rounds alternate in balanced
//! order, A B | B A | A B | ... (or starting with B), so a drift that rises or falls steadily
//! through the experiment favours neither side, and each round's two runs, made back to back,
//! share whatever the host was doing then. Which side goes first is chosen at random: a
//! fixed first side would carry any first-run effect (a cold cache, a fresh file) always to A.

/// One side of the experiment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    A,
    B,
}

impl Side {
    /// As the run is labelled (`ab=a`).
    pub fn label(self) -> &'static str {
        match self {
            Side::A => "a",
            Side::B => "b",
        }
    }

    fn other(self) -> Side {
        match self {
            Side::A => Side::B,
            Side::B => Side::A,
        }
    }
}

/// Every run of the experiment in order: `(side, round)`, rounds from 1.
pub fn order(rounds: u32, first: Side) -> Vec<(Side, u32)> {
    (1..=rounds)
        .flat_map(|round| {
            let lead = if round % 2 == 1 { first } else { first.other() };
            [(lead, round), (lead.other(), round)]
        })
        .collect()
}

/// `A B B A A B`, as the order is printed.
pub fn order_text(order: &[(Side, u32)]) -> String {
    order.iter().map(|(s, _)| s.label().to_uppercase()).collect::<Vec<_>>().join(" ")
}

/// The rounds in which both sides' runs finished, each as (A's item, B's item); a round cut
/// short by an interruption has no pair and is left out.
pub fn pairs<T: Copy>(runs: &[(Side, u32, T)]) -> Vec<(u32, T, T)> {
    let mut rounds: Vec<u32> = runs.iter().map(|r| r.1).collect();
    rounds.dedup();
    rounds
        .into_iter()
        .filter_map(|round| {
            let find = |side| runs.iter().find(|r| r.0 == side && r.1 == round).map(|r| r.2);
            Some((round, find(Side::A)?, find(Side::B)?))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_alternate_in_balanced_order() {
        assert_eq!(order_text(&order(3, Side::A)), "A B B A A B");
        assert_eq!(order_text(&order(4, Side::B)), "B A A B B A A B");
        let o = order(5, Side::A);
        assert_eq!(o.len(), 10);
        assert_eq!(o[2..4], [(Side::B, 2), (Side::A, 2)]);
        let a_first = o.chunks(2).filter(|pair| pair[0].0 == Side::A).count();
        assert_eq!(a_first, 3, "an odd number of rounds leads with the first side once more");
    }

    #[test]
    fn only_complete_rounds_pair() {
        let runs = [(Side::A, 1, 10), (Side::B, 1, 11), (Side::B, 2, 12), (Side::A, 2, 13), (Side::A, 3, 14)];
        assert_eq!(pairs(&runs), [(1, 10, 11), (2, 13, 12)]);
        assert!(pairs::<i32>(&[]).is_empty());
    }
}
