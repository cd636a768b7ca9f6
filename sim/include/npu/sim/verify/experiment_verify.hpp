// `npu experiment --verify`: the figures of `npu verify` (verify.hpp) for every run of an
// experiment, added to its summary (docs/experiment.md, "--verify").
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "npu/sim/experiment/experiment.hpp"
#include "npu/sim/verify/verify.hpp"

namespace npu::sim {

/// Sets RunSummary::verify on every run: per (model, hw), prepare_verify() with `base`
/// (inputs, calibration, tolerance; model and hw taken from the run), then verify_strategy()
/// on the run's folder (fp32 configs: the children ran with --with-data) or the PTQ model
/// (int8). Fake-quant outputs go to RUN_DIR/verify/. A model or config that cannot be
/// verified (e.g. a zoo model without weights) gives every run of it the status
/// "not run: <reason>", never a blank. Returns the number of fp32 runs that fail.
int add_verify_figures(std::vector<RunSummary>& runs, const VerifyOptions& base);

/// The worst-output summary of `rows` (one strategy's verify_strategy() result, first row:
/// the strategy as built; a fold-after-quant row is not part of experiment summaries).
VerifyFigures summarise_rows(const std::vector<VerifyRow>& rows);

/// summary.csv columns added by --verify, each with its leading comma.
extern const char* const kVerifyCsvHeader;

/// The fields of kVerifyCsvHeader for `r` (each with its leading comma; empty numbers where a
/// figure does not apply, the status columns say why).
std::string verify_csv_fields(const RunSummary& r);

/// summary.json's "verify" object (SQNR +inf as the string "inf").
nlohmann::json verify_json(const VerifyFigures& f);

/// The verification table of the text / Markdown summary ("" when no run has figures).
std::string verify_table(const std::vector<RunSummary>& runs, bool markdown);

}  // namespace npu::sim
