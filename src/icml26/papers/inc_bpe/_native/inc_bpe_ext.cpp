// nanobind bindings of the incremental BPE core [P19]. Every heavy call releases the GIL.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>
#include <nanobind/stl/pair.h>

#include <stdexcept>

#include "inc_bpe_core.hpp"

namespace nb = nanobind;
using incbpe::Stream;
using incbpe::Vocab;

namespace {

std::vector<std::string> copy_tokens(const nb::list& tokens) {
  std::vector<std::string> out;
  out.reserve(nb::len(tokens));
  for (nb::handle h : tokens) {
    if (!nb::isinstance<nb::bytes>(h)) throw nb::type_error("tokens: every item must be bytes");
    nb::bytes b = nb::borrow<nb::bytes>(h);
    out.emplace_back(b.c_str(), b.size());
  }
  return out;
}

std::vector<uint32_t> encode_pieces(const Vocab& v, const nb::list& pieces) {
  std::vector<std::pair<const uint8_t*, size_t>> views;
  views.reserve(nb::len(pieces));
  size_t total = 0;
  for (nb::handle h : pieces) {
    if (PyBytes_Check(h.ptr())) {
      views.emplace_back(reinterpret_cast<const uint8_t*>(PyBytes_AS_STRING(h.ptr())),
                         static_cast<size_t>(PyBytes_GET_SIZE(h.ptr())));
    } else if (PyUnicode_Check(h.ptr())) {
      Py_ssize_t len = 0;
      const char* p = PyUnicode_AsUTF8AndSize(h.ptr(), &len);
      if (!p) throw nb::python_error();
      views.emplace_back(reinterpret_cast<const uint8_t*>(p), static_cast<size_t>(len));
    } else {
      throw nb::type_error("pieces: every item must be str or bytes");
    }
    total += views.back().second;
  }
  std::vector<uint32_t> out;
  {
    nb::gil_scoped_release release;  // the list (and so every piece) is kept alive by the caller's reference
    out.reserve(total / 3 + 8);
    std::vector<uint32_t> scratch;
    for (auto& [p, m] : views) v.encode_piece(p, m, out, scratch);
  }
  return out;
}

}  // namespace

NB_MODULE(_inc_bpe_native, m) {
  nb::set_leak_warnings(false);  // encodings are memoised in module globals that outlive interpreter finalisation
  m.doc() = "Native core of incremental BPE [P19]: exact byte-level BPE in O(t) worst case per byte, and streaming.";

  nb::class_<Vocab>(m, "Vocab")
      .def("__init__",
           [](Vocab* self, const nb::list& tokens) {
             std::vector<std::string> toks = copy_tokens(tokens);
             nb::gil_scoped_release release;
             new (self) Vocab(std::move(toks));
           },
           nb::arg("tokens"), "Preprocess a vocabulary given as token bytes by rank (raises ValueError if malformed).")
      .def_prop_ro("size", &Vocab::size)
      .def_prop_ro("max_len", &Vocab::max_len)
      .def_prop_ro("n_states", &Vocab::n_states)
      .def("rule", [](const Vocab& v, uint32_t id) {
             if (id >= v.size()) throw nb::index_error("id out of range");
             return std::make_pair(v.info(id).pre, v.info(id).suc);
           }, nb::arg("id"))
      .def("encode", [](const Vocab& v, nb::bytes data) {
             std::vector<uint32_t> out, scratch;
             const uint8_t* p = reinterpret_cast<const uint8_t*>(data.c_str());
             const size_t n = data.size();
             {
               nb::gil_scoped_release release;
               out.reserve(n / 3 + 8);
               v.encode_piece(p, n, out, scratch);
             }
             return out;
           }, nb::arg("data"), "BPE of one byte string (no pre-tokenization).")
      .def("encode_pieces", &encode_pieces, nb::arg("pieces"),
           "BPE of each piece (str as UTF-8, or bytes), concatenated.");

  nb::class_<Stream>(m, "Stream")
      .def(nb::init<const Vocab*>(), nb::arg("vocab"), nb::keep_alive<1, 2>())
      .def("feed", [](Stream& s, nb::bytes data) {
             std::vector<uint32_t> out;
             const uint8_t* p = reinterpret_cast<const uint8_t*>(data.c_str());
             const size_t n = data.size();
             nb::gil_scoped_release release;
             std::lock_guard<std::mutex> lock(s.mu);
             s.feed(p, n, out);
             return out;
           }, nb::arg("data"))
      .def("finish", [](Stream& s) {
             std::vector<uint32_t> out;
             std::lock_guard<std::mutex> lock(s.mu);
             s.finish(out);
             return out;
           })
      .def("tokens", [](Stream& s) {
             std::vector<uint32_t> out;
             std::lock_guard<std::mutex> lock(s.mu);
             s.tokens(out);
             return out;
           })
      .def_prop_ro("pending", &Stream::pending)
      .def_prop_ro("n_bytes", &Stream::n_bytes)
      .def_prop_ro("finished", &Stream::finished);
}
