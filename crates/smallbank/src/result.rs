//! What a SmallBank run reports, as it is written to JSON (`--out`): the types live in
//! `triebench-record` ([`triebench_record::smallbank`]), where the report reads them too.

pub use triebench_record::smallbank::{Percentiles, SideFigures, SmallbankResult};
