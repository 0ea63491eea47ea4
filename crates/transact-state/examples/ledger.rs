//! A small ledger, as a Splinter- or Sawtooth-style node would keep it: transactions become
//! state changes through Transact's traits, each block is one commit, and after each block the
//! node prunes the previous block's root, blocks that change nothing included.
//!
//! ```sh
//! cargo run -p triebench-transact-state --features all-backends --example ledger -- \
//!     --profile lmdb --dir /tmp/ledger --blocks 200
//! ```
//!
//! The node code (`Node`) is generic over Transact's traits only, so it runs unchanged on
//! Transact's own `MerkleState`; here it runs on `triebench_transact_state::open(profile, dir)`. After
//! every block it checks that money was neither made nor lost (the sum of all balances, read
//! back through a leaf listing of the ledger's namespace) and that the head reads back.

use std::collections::HashMap;
use std::error::Error;
use std::path::PathBuf;

use sha2::{Digest, Sha512};
use transact::state::merkle::MerkleRadixLeafReader;
use transact::state::{Prune, Read, StateChange, Write};

/// The ledger's namespace: the first 6 hex characters of every address it writes, as a
/// Sawtooth transaction family's prefix.
const NAMESPACE: &str = "1edce4";
const ACCOUNTS: u64 = 40;
const OPENING_BALANCE: u64 = 1_000;

/// A transaction of the ledger.
#[derive(Debug, Clone)]
enum Transaction {
    /// Opens `account` with `balance`.
    Open { account: String, balance: u64 },
    /// Moves `amount` from one account to another (0 is allowed: it changes nothing).
    Transfer {
        from: String,
        to: String,
        amount: u64,
    },
    /// Closes `account`, paying its balance to `heir`.
    Close { account: String, heir: String },
}

/// The state address of an account: the namespace, then 64 hex characters of SHA-512.
fn address(account: &str) -> String {
    let digest = Sha512::digest(account.as_bytes());
    let mut out = String::from(NAMESPACE);
    for byte in &digest[..32] {
        out.push_str(&format!("{byte:02x}"));
    }
    out
}

fn balance_of(value: &[u8]) -> Result<u64, Box<dyn Error>> {
    let bytes: [u8; 8] = value
        .try_into()
        .map_err(|_| format!("a balance of {} bytes, not 8", value.len()))?;
    Ok(u64::from_be_bytes(bytes))
}

/// A node's view of its state: any implementation of Transact's state traits.
struct Node<S> {
    state: S,
    head: String,
}

impl<S> Node<S>
where
    S: Read<StateId = String, Key = String, Value = Vec<u8>>
        + Write<StateId = String, Key = String, Value = Vec<u8>>
        + Prune<StateId = String, Key = String, Value = Vec<u8>>
        + MerkleRadixLeafReader,
{
    /// Turns a block's transactions into state changes against the head, as a transaction
    /// processor does: reads what each transaction needs, sees the block's earlier writes.
    fn changes(&self, block: &[Transaction]) -> Result<Vec<StateChange>, Box<dyn Error>> {
        let mut pending: HashMap<String, Option<u64>> = HashMap::new();
        let mut changes = Vec::new();
        for tx in block {
            let balance_at = |account: &str| -> Result<Option<u64>, Box<dyn Error>> {
                let key = address(account);
                if let Some(known) = pending.get(&key) {
                    return Ok(*known);
                }
                let mut found = self.state.get(&self.head, std::slice::from_ref(&key))?;
                found.remove(&key).map(|v| balance_of(&v)).transpose()
            };
            let writes: Vec<(String, Option<u64>)> = match tx {
                Transaction::Open { account, balance } => match balance_at(account)? {
                    Some(_) => continue, // already open: the transaction is invalid, skipped
                    None => vec![(account.clone(), Some(*balance))],
                },
                Transaction::Transfer { from, to, amount } => {
                    match (balance_at(from)?, balance_at(to)?) {
                        (Some(a), Some(b)) if a >= *amount && from != to => vec![
                            (from.clone(), Some(a - amount)),
                            (to.clone(), Some(b + amount)),
                        ],
                        _ => continue,
                    }
                }
                Transaction::Close { account, heir } => {
                    match (balance_at(account)?, balance_at(heir)?) {
                        (Some(a), Some(b)) if account != heir => {
                            vec![(account.clone(), None), (heir.clone(), Some(b + a))]
                        }
                        _ => continue,
                    }
                }
            };
            for (account, balance) in writes {
                let key = address(&account);
                pending.insert(key.clone(), balance);
                changes.push(match balance {
                    Some(b) => StateChange::Set {
                        key,
                        value: b.to_be_bytes().to_vec(),
                    },
                    None => StateChange::Delete { key },
                });
            }
        }
        Ok(changes)
    }

    /// Commits a block on the head, prunes the previous root, and returns what the prune
    /// deleted.
    fn apply(&mut self, block: &[Transaction]) -> Result<(String, usize), Box<dyn Error>> {
        let changes = self.changes(block)?;
        let root = self.state.commit(&self.head, &changes)?;
        let previous = std::mem::replace(&mut self.head, root.clone());
        let deleted = self.state.prune(vec![previous])?;
        Ok((root, deleted.len()))
    }

    /// The sum of every balance at the head, and the number of accounts.
    fn supply(&self) -> Result<(u64, usize), Box<dyn Error>> {
        let mut total = 0;
        let mut accounts = 0;
        for leaf in self.state.leaves(&self.head, Some(NAMESPACE))? {
            let (_, value) = leaf?;
            total += balance_of(&value)?;
            accounts += 1;
        }
        Ok((total, accounts))
    }
}

/// A deterministic stream of blocks (xorshift), with every fifth block empty and every
/// seventh a transfer of zero: both change nothing, so their root is their parent's.
fn block(number: u64) -> Vec<Transaction> {
    if number == 0 {
        return (0..ACCOUNTS)
            .map(|i| Transaction::Open {
                account: format!("account-{i}"),
                balance: OPENING_BALANCE,
            })
            .collect();
    }
    if number.is_multiple_of(5) {
        return Vec::new();
    }
    let mut x = number.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let account = |n: u64| format!("account-{}", n % ACCOUNTS);
    if number.is_multiple_of(7) {
        return vec![Transaction::Transfer {
            from: account(next()),
            to: account(next()),
            amount: 0,
        }];
    }
    (0..1 + next() % 6)
        .map(|_| match next() % 10 {
            0 => Transaction::Close {
                account: account(next()),
                heir: account(next()),
            },
            1 => Transaction::Open {
                account: account(next()),
                balance: 0,
            },
            _ => Transaction::Transfer {
                from: account(next()),
                to: account(next()),
                amount: next() % 300,
            },
        })
        .collect()
}

const USAGE: &str = "usage: ledger [--profile P] [--dir D] [--blocks N]";

struct Args {
    profile: String,
    dir: Option<PathBuf>,
    blocks: u64,
}

fn args() -> Result<Args, String> {
    let mut out = Args {
        profile: "btree".into(),
        dir: None,
        blocks: 100,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--profile" => out.profile = value()?,
            "--dir" => out.dir = Some(PathBuf::from(value()?)),
            "--blocks" => {
                let text = value()?;
                out.blocks = text
                    .parse()
                    .map_err(|_| format!("--blocks takes a count, got `{text}`"))?;
            }
            other => return Err(format!("unknown argument `{other}` ({USAGE})")),
        }
    }
    Ok(out)
}

fn run() -> Result<(), Box<dyn Error>> {
    let args = args()?;
    let state = triebench_transact_state::open(&args.profile, args.dir.as_deref())?;
    let mut node = Node {
        head: state.initial_root(),
        state,
    };
    let mut unchanged = 0;
    let mut pruned = 0;
    for number in 0..args.blocks {
        let parent = node.head.clone();
        let (root, deleted) = node.apply(&block(number))?;
        pruned += deleted;
        if root == parent {
            unchanged += 1;
        }
        let (supply, accounts) = node.supply()?;
        let expected = ACCOUNTS * OPENING_BALANCE;
        if supply != expected {
            return Err(format!("block {number}: supply {supply}, expected {expected}").into());
        }
        if number % 25 == 0 || number + 1 == args.blocks {
            println!(
                "block {number:>4}: root {}… {accounts} accounts, supply {supply}",
                &root[..16]
            );
        }
    }
    println!(
        "{} blocks on {}: {unchanged} changed nothing and kept their parent's root; the previous \
         root was pruned after every block ({pruned} nodes deleted); the head reads back and the \
         supply is conserved",
        args.blocks, args.profile
    );
    Ok(())
}

fn main() {
    if let Err(e) = run() {
        eprintln!("ledger: {e}");
        std::process::exit(1);
    }
}
