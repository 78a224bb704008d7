//! The order of an A/B experiment (its runs are paired again by their labels, in
//! `spindle_analysis::compare::pair_rounds`). Rounds alternate in balanced
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
}
