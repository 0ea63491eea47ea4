//! The transaction families a run executes through Transact's executor: SmallBank (Transact's
//! banking benchmark: its seeded playlist and handler) and Transact's command family (a
//! key-value family whose transactions say what to read and write: here each reads one key
//! and writes it back, the shape of a transfer-less ledger update).

use std::fmt;
use std::str::FromStr;

use protobuf::Message;
use transact::families::command::CommandTransactionHandler;
use transact::families::smallbank::SmallbankTransactionHandler;
use transact::handler::TransactionHandler;

use crate::command::CommandWorkload;
use crate::error::SmallbankError;
use crate::playlist::{addresses, Playlist};
use crate::transaction::Transaction;

/// A family `--family` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Family {
    /// SmallBank: accounts created, then Transact's mix of deposits, checks, savings,
    /// payments and amalgamations.
    #[default]
    Smallbank,
    /// Transact's command family: keys created, then read-and-write transactions on them.
    Command,
}

/// Every family, as `--family` lists them.
pub const FAMILIES: [Family; 2] = [Family::Smallbank, Family::Command];

impl Family {
    /// The name `--family` and the record use.
    pub fn name(self) -> &'static str {
        match self {
            Family::Smallbank => "smallbank",
            Family::Command => "command",
        }
    }

    /// The fewest accounts (keys) a run needs: a payment takes two accounts.
    pub fn min_accounts(self) -> u64 {
        match self {
            Family::Smallbank => 2,
            Family::Command => 1,
        }
    }

    /// Transact's handler for the family.
    pub fn handler(self) -> Box<dyn TransactionHandler> {
        match self {
            Family::Smallbank => Box::new(SmallbankTransactionHandler::new()),
            Family::Command => Box::new(CommandTransactionHandler::new()),
        }
    }

    /// The family's seeded transactions: `accounts` creations first, then as many others as
    /// taken.
    pub fn transactions(
        self,
        accounts: u64,
        seed: u64,
    ) -> Box<dyn Iterator<Item = Result<Transaction, SmallbankError>> + Send> {
        match self {
            Family::Smallbank => Box::new(Playlist::new(accounts as usize, seed).map(|payload| {
                Ok(Transaction {
                    family: "smallbank",
                    version: "1.0",
                    addresses: addresses(&payload),
                    payload: payload
                        .write_to_bytes()
                        .map_err(|e| SmallbankError::Protocol(e.to_string()))?,
                })
            })),
            Family::Command => Box::new(CommandWorkload::new(accounts, seed)),
        }
    }
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Family {
    type Err = SmallbankError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        FAMILIES.into_iter().find(|f| f.name() == s).ok_or_else(|| {
            SmallbankError::Options(format!(
                "unknown family `{s}`; the families are {}",
                FAMILIES.map(Family::name).join(", ")
            ))
        })
    }
}
