//! [`Blocks`]: a family's seeded transactions cut into blocks of batches, the same sequence
//! wherever it is made (this process, or `transact-runner` for Transact's durable states).

use transact::protocol::batch::BatchPair;

use crate::batch::batch_of;
use crate::error::SmallbankError;
use crate::family::Family;
use crate::transaction::Transaction;

/// The blocks of one run, numbered from 1.
pub struct Blocks {
    transactions: Box<dyn Iterator<Item = Result<Transaction, SmallbankError>> + Send>,
    block_size: u64,
    next_block: u64,
    next_index: u64,
    /// Blocks in the run.
    pub count: u64,
}

impl Blocks {
    /// `accounts` creations then `transactions` others of `family`, seeded with `seed`, in
    /// blocks of `block_size` (at least 1).
    pub fn new(
        family: Family,
        accounts: u64,
        transactions: u64,
        block_size: u64,
        seed: u64,
    ) -> Self {
        let total = accounts + transactions;
        let block_size = block_size.max(1);
        Blocks {
            transactions: Box::new(family.transactions(accounts, seed).take(total as usize)),
            block_size,
            next_block: 1,
            next_index: 0,
            count: total.div_ceil(block_size),
        }
    }

    /// The next block's number and batches, or `None` after the last.
    pub fn next_block(&mut self) -> Result<Option<(u64, Vec<BatchPair>)>, SmallbankError> {
        if self.next_block > self.count {
            return Ok(None);
        }
        let mut batches = Vec::with_capacity(self.block_size as usize);
        for transaction in self.transactions.by_ref().take(self.block_size as usize) {
            batches.push(batch_of(self.next_index, &transaction?)?);
            self.next_index += 1;
        }
        let block = self.next_block;
        self.next_block += 1;
        Ok(Some((block, batches)))
    }
}
