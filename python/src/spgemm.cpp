// python/src/spgemm.cpp: SpGEMM C = A·B — the one-call multiply and the reusable two-phase SpgemmPlan.
#include <variant>

#include <gigasparse/spgemm.hpp>

#include <nanobind/stl/string.h>

#include "common.hpp"

namespace gigasparse::python {

namespace {

// Options from the Python keyword arguments (name -> int); unknown names are InvalidArgument.
SpgemmOptions make_options(const std::string& backend, const nb::dict& kwargs) {
    SpgemmOptions o;
    o.backend = parse_spgemm_backend(backend);
    for (auto [key, value] : kwargs) {
        const std::string k = nb::cast<std::string>(key);
        if (k == "check_pattern") {
            o.check_pattern = nb::cast<bool>(value);
            continue;
        }
        if (k == "force_category") {
            const std::string c = nb::cast<std::string>(value);
            bool found = false;
            for (int i = 0; i < spgemm_category_count; ++i)
                if (c == to_string(static_cast<SpgemmCategory>(i))) {
                    o.force_category = static_cast<SpgemmCategory>(i);
                    found = true;
                }
            if (!found) throw InvalidArgument("spgemm: unknown force_category '" + c + "'");
            continue;
        }
        const std::int64_t v = nb::cast<std::int64_t>(value);
        if (k == "threads") o.threads = static_cast<int>(v);
        else if (k == "l2_bytes") o.l2_bytes = v;
        else if (k == "cache_line_bytes") o.cache_line_bytes = v;
        else if (k == "sort_threshold") o.sort_threshold = v;
        else if (k == "chunk_sort_threshold") o.chunk_sort_threshold = v;
        else if (k == "sort_merge_target") o.sort_merge_target = v;
        else if (k == "dense_max_fill") o.dense_max_fill = v;
        else if (k == "fine_chunk_cols") o.fine_chunk_cols = v;
        else if (k == "coarse_chunk_cols") o.coarse_chunk_cols = v;
        else if (k == "coarse_batch_products") o.coarse_batch_products = v;
        else if (k == "wide_threshold") o.wide_threshold = v;
        else if (k == "serial_products") o.serial_products = v;
        else if (k == "fused_products") o.fused_products = v;
        else if (k == "dense_l2_factor") o.dense_l2_factor = v;
        else if (k == "window_max_fill") o.window_max_fill = v;
        else if (k == "spa_max_cols") o.spa_max_cols = v;
        else if (k == "spa_threshold") o.spa_threshold = v;
        else if (k == "device") o.gpu.device = static_cast<int>(v);
        else if (k == "shared_memory_bytes") o.gpu.shared_memory_bytes = v;
        else if (k == "intermediate_budget_bytes") o.gpu.intermediate_budget_bytes = v;
        else if (k == "multisplit_threads") o.gpu.multisplit_threads = static_cast<int>(v);
        else if (k == "outer_threads") o.gpu.outer_threads = static_cast<int>(v);
        else if (k == "warp_light_rows") o.gpu.warp_light_rows = v != 0;
        else if (k == "warp_row_products") o.gpu.warp_row_products = v;
        else if (k == "small_row_products") o.gpu.small_row_products = v;
        else if (k == "light_streams") o.gpu.light_streams = static_cast<int>(v);
        else if (k == "fit_hash_blocks") o.gpu.fit_hash_blocks = v != 0;
        else if (k == "one_pass_light_rows") o.gpu.one_pass_light_rows = v != 0;
        else if (k == "light_stage_budget_bytes") o.gpu.light_stage_budget_bytes = v;
        else if (k == "keep_c_pattern") o.gpu.keep_c_pattern = v != 0;
        else if (k == "light_product_map") o.gpu.light_product_map = v != 0;
        else if (k == "warp_sort_steps") o.gpu.warp_sort_steps = v != 0;
        else if (k == "rank_sort") o.gpu.rank_sort = v != 0;
        else if (k == "packed_tables") o.gpu.packed_tables = v != 0;
        else if (k == "dense_light_rows") o.gpu.dense_light_rows = v != 0;
        else if (k == "dense_wide_rows") o.gpu.dense_wide_rows = v != 0;
        else if (k == "dense_wide_windows") o.gpu.dense_wide_windows = static_cast<int>(v);
        else if (k == "dense_wide_walk") o.gpu.dense_wide_walk = v;
        else if (k == "dense_wide_walk_adaptive") o.gpu.dense_wide_walk_adaptive = v != 0;
        else if (k == "time_phases") o.gpu.time_phases = v != 0;
        else if (k == "small_products") o.gpu.small_products = v != 0;
        else if (k == "resident_blocks") o.gpu.resident_blocks = static_cast<int>(v);
        else if (k == "heavy_threshold") o.gpu.heavy_threshold = v;
        else throw InvalidArgument("spgemm: unknown option '" + k + "'");
    }
    return o;
}

nb::dict stats_dict(const SpgemmStats& s) {
    nb::dict d;
    d["backend"] = to_string(s.backend);
    d["threads"] = s.threads;
    d["setup_seconds"] = s.setup_seconds;
    d["symbolic_seconds"] = s.symbolic_seconds;
    d["numeric_seconds"] = s.numeric_seconds;
    d["fused"] = s.fused;
    d["total_seconds"] = s.total_seconds();
    d["products"] = s.products;
    d["flops"] = 2 * s.products;
    d["max_row_products"] = s.max_row_products;
    d["nnz_c"] = s.nnz_c;
    nb::dict rows, products;
    for (int i = 0; i < spgemm_category_count; ++i) {
        const char* name = to_string(static_cast<SpgemmCategory>(i));
        rows[name] = s.category_rows[static_cast<std::size_t>(i)];
        products[name] = s.category_products[static_cast<std::size_t>(i)];
    }
    d["category_rows"] = rows;
    d["category_products"] = products;
    d["wide_rows"] = s.wide_rows;
    d["window_rows"] = s.window_rows;
    d["spa_rows"] = s.spa_rows;
    d["workspace_bytes"] = s.workspace_bytes;
    d["plan_bytes"] = s.plan_bytes;
    d["dense_max_cols"] = s.dense_max_cols;
    d["l2_bytes"] = s.l2_bytes;
    d["cache_line_bytes"] = s.cache_line_bytes;
    d["fine_chunk_cols"] = s.fine_chunk_cols;
    d["fine_chunks"] = s.fine_chunks;
    d["coarse_chunk_cols"] = s.coarse_chunk_cols;
    d["coarse_chunks"] = s.coarse_chunks;
    d["coarse_batches"] = s.coarse_batches;
    if (s.backend == SpgemmBackend::cuda) {  // the device's own account (CUDA events, milliseconds)
        const cuda::GpuSpgemmStats& g = s.gpu;
        nb::dict gpu;
        gpu["heavy_rows"] = g.heavy_rows;
        gpu["light_rows"] = g.light_rows;
        gpu["wide_dense_rows"] = g.wide_dense_rows;
        gpu["wide_walk_cap"] = g.wide_walk_cap;
        gpu["small_product"] = g.small_product;
        gpu["small_long_rows"] = g.small_long_rows;
        gpu["small_rows_back"] = g.small_rows_back;
        gpu["heavy_products"] = g.heavy_products;
        gpu["levels"] = g.nlevels;
        gpu["levels_run"] = g.levels_run;
        gpu["batches"] = g.batches;
        gpu["replanned"] = g.replanned;
        gpu["tau"] = g.tau;
        gpu["device_bytes_peak"] = g.device_bytes_peak;
        gpu["light_stage_bytes"] = g.light_stage_bytes;
        gpu["known_pattern_bytes"] = g.known_pattern_bytes;
        gpu["product_map_bytes"] = g.product_map_bytes;
        gpu["upload_ms"] = g.upload_ms;
        gpu["setup_ms"] = g.setup_ms;
        gpu["csc_ms"] = g.csc_ms;
        gpu["outer_ms"] = g.outer_ms;
        gpu["multisplit_ms"] = g.multisplit_ms;
        gpu["light_ms"] = g.light_ms;
        gpu["symbolic_ms"] = g.symbolic_ms;
        gpu["numeric_ms"] = g.numeric_ms;
        gpu["total_ms"] = g.total_ms;
        gpu["download_ms"] = g.download_ms;
        d["gpu"] = gpu;
    }
    return d;
}

// A SpgemmPlan of whichever (value, index) types the first symbolic() call brings.
class Plan {
public:
    explicit Plan(SpgemmOptions options) : options_(std::move(options)) {}

    void symbolic(const CsrArg& a, const CsrArg& b) {
        dispatch(a.data.dtype(), a.indices.dtype(), [&]<class V, class I>() {
            auto ia = csr_input<V, I>(a, "A");
            auto ib = csr_input<V, I>(b, "B");
            SpgemmPlan<V, I> p(options_);
            {
                nb::gil_scoped_release release;
                p.symbolic(ia.view, ib.view);
            }
            plan_ = std::move(p);
            return nb::object();
        });
    }

    nb::object numeric(const CsrArg& a, const CsrArg& b) {
        if (std::holds_alternative<std::monostate>(plan_)) throw PhaseError("SpgemmPlan.numeric: call symbolic() first");
        return dispatch(a.data.dtype(), a.indices.dtype(), [&]<class V, class I>() {
            auto* p = std::get_if<SpgemmPlan<V, I>>(&plan_);
            if (!p)
                throw InvalidArgument("SpgemmPlan.numeric: A has dtype " + dtype_name(a.data.dtype()) + "/" +
                                      dtype_name(a.indices.dtype()) + ", not the types given to symbolic()");
            auto ia = csr_input<V, I>(a, "A");
            auto ib = csr_input<V, I>(b, "B");
            Csr<V, I> c;
            {
                nb::gil_scoped_release release;
                c = p->numeric(ia.view, ib.view);
            }
            return csr_output(std::move(c));
        });
    }

    bool has_symbolic() const {
        return std::visit(
            [](const auto& p) {
                if constexpr (std::is_same_v<std::decay_t<decltype(p)>, std::monostate>) return false;
                else return p.has_symbolic();
            },
            plan_);
    }

    std::int64_t nnz() const {
        return std::visit(
            [](const auto& p) -> std::int64_t {
                if constexpr (std::is_same_v<std::decay_t<decltype(p)>, std::monostate>)
                    throw PhaseError("SpgemmPlan.nnz: call symbolic() first");
                else return p.nnz();
            },
            plan_);
    }

    nb::dict stats() const {
        return std::visit(
            [](const auto& p) -> nb::dict {
                if constexpr (std::is_same_v<std::decay_t<decltype(p)>, std::monostate>)
                    throw PhaseError("SpgemmPlan.stats: call symbolic() first");
                else return stats_dict(p.stats());
            },
            plan_);
    }

    std::string backend() const { return to_string(options_.backend); }

private:
    SpgemmOptions options_;
    std::variant<std::monostate, SpgemmPlan<float, std::int32_t>, SpgemmPlan<float, std::int64_t>, SpgemmPlan<double, std::int32_t>,
                 SpgemmPlan<double, std::int64_t>, SpgemmPlan<std::complex<float>, std::int32_t>, SpgemmPlan<std::complex<float>, std::int64_t>,
                 SpgemmPlan<std::complex<double>, std::int32_t>, SpgemmPlan<std::complex<double>, std::int64_t>>
        plan_;
};

}  // namespace

void register_spgemm(nb::module_& m) {
    m.def(
        "spgemm",
        [](const CsrArg& a, const CsrArg& b, const std::string& backend, const nb::dict& kwargs) {
            const SpgemmOptions o = make_options(backend, kwargs);
            return dispatch(a.data.dtype(), a.indices.dtype(), [&]<class V, class I>() {
                auto ia = csr_input<V, I>(a, "A");
                auto ib = csr_input<V, I>(b, "B");
                SpgemmStats stats;
                Csr<V, I> c;
                {
                    nb::gil_scoped_release release;
                    c = multiply<V, I>(ia.view, ib.view, o, &stats);
                }
                return nb::object(nb::make_tuple(csr_output(std::move(c)), stats_dict(stats)));
            });
        },
        nb::arg("a"), nb::arg("b"), nb::arg("backend"), nb::arg("options"),
        "C = A*B in one call; returns ((data, indices, indptr, shape), stats).");
    nb::class_<Plan>(m, "SpgemmPlanCore", "Type-erased gigasparse::SpgemmPlan (use gigasparse.SpgemmPlan).")
        .def("__init__",
             [](Plan* self, const std::string& backend, const nb::dict& kwargs) {
                 new (self) Plan(make_options(backend, kwargs));
             },
             nb::arg("backend"), nb::arg("options"))
        .def("symbolic", &Plan::symbolic, nb::arg("a"), nb::arg("b"))
        .def("numeric", &Plan::numeric, nb::arg("a"), nb::arg("b"))
        .def_prop_ro("has_symbolic", &Plan::has_symbolic)
        .def_prop_ro("nnz", &Plan::nnz)
        .def_prop_ro("stats", &Plan::stats)
        .def_prop_ro("backend", &Plan::backend);
}

}  // namespace gigasparse::python
