//! [`Unanswered`]: a server-backed writer's read across tables (`get_many_across`) split into
//! what its pending changes answer at once and the keys left to ask the server in one request.

use crate::error::KvResult;
use crate::store::Table;

/// The keys of a cross-table read that no pending change answered, by ask, with where each
/// stands in its ask, so that the server's answers reach the caller under the caller's indices.
pub(crate) struct Unanswered<'k> {
    /// Per ask: the table's index and its unanswered keys.
    asked: Vec<(usize, Vec<&'k [u8]>)>,
    /// Per ask: the position in the ask of each unanswered key.
    positions: Vec<Vec<usize>>,
}

impl<'k> Unanswered<'k> {
    /// Splits `asks`: a key with a pending put goes to `f` now (ask, position, value), a key with
    /// a pending delete is absent, and the rest are kept to be asked. `index` checks a table and
    /// gives its index; `pending` is the writer's change of a key in a table, if it has one
    /// (`Some(None)`: deleted).
    pub(crate) fn split<'p, F>(
        asks: &[(Table, &[&'k [u8]])],
        index: impl Fn(Table) -> KvResult<usize>,
        pending: impl Fn(usize, &[u8]) -> Option<Option<&'p [u8]>>,
        f: &mut F,
    ) -> KvResult<Self>
    where
        F: FnMut(usize, usize, &[u8]),
    {
        let mut asked = Vec::with_capacity(asks.len());
        let mut positions = Vec::with_capacity(asks.len());
        for (a, &(table, keys)) in asks.iter().enumerate() {
            let i = index(table)?;
            let mut rest = Vec::with_capacity(keys.len());
            let mut at = Vec::with_capacity(keys.len());
            for (k, key) in keys.iter().enumerate() {
                match pending(i, key) {
                    Some(Some(v)) => f(a, k, v),
                    Some(None) => {}
                    None => {
                        rest.push(*key);
                        at.push(k);
                    }
                }
            }
            asked.push((i, rest));
            positions.push(at);
        }
        Ok(Unanswered { asked, positions })
    }

    /// The unanswered keys, per ask, with their table's index: the one request to make.
    pub(crate) fn tables(&self) -> Vec<(usize, &[&'k [u8]])> {
        self.asked.iter().map(|(t, k)| (*t, &k[..])).collect()
    }

    /// Where the `j`th unanswered key of ask `a` stands in that ask.
    pub(crate) fn position(&self, a: usize, j: usize) -> usize {
        self.positions[a][j]
    }
}
