#include "runtime/conv_desc.h"

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "runtime/error.h"

namespace jitconv {

double ConvDesc::flops() const {
  return 2.0 * mb * oc * oh * ow * (static_cast<double>(ic) / g) * kh * kw;
}

namespace {

struct RawDesc {
  long g = 1, mb = 2;
  long ic = 0, id = 0, ih = 0, iw = 0;
  long oc = 0, od = 0, oh = 0, ow = 0;
  long kd = 0, kh = 0, kw = 0;
  long sd = 1, sh = 1, sw = 1;
  long pd = -1, ph = -1, pw = -1;
  long dd = 0, dh = 0, dw = 0;
  bool has_g = false, has_sd = false, has_pd = false, has_dd = false;
  std::string name;
};

long compute_out(long i, long k, long s, long p, long d) { return (i - ((k - 1) * (d + 1) + 1) + 2 * p) / s + 1; }
long trivial_pad(long o, long i, long k, long s, long d) { return ((o - 1) * s - i + ((k - 1) * (d + 1) + 1)) / 2; }
long implied_pad_r(long o, long i, long k, long s, long p, long d) {
  return (o - 1) * s - i + ((k - 1) * (d + 1) + 1) - p;
}

// Resolves one spatial axis the way benchdnn does; `axis` is "h" or "w" for messages.
void resolve_axis(const char* axis, long& i, long& k, long& o, long s, long& p, long d) {
  if (!i) fail("i", axis, " is missing");
  if (!k) fail("k", axis, " is missing");
  if (s <= 0) fail("s", axis, " must be positive, got ", s);
  if (!o) {
    if (p < 0) p = 0;
    o = compute_out(i, k, s, p, d);
    if (o <= 0) fail("o", axis, ": output size ", o, " is not positive (i", axis, i, " k", axis, k, " d", axis, d, ")");
  } else if (p < 0) {
    p = trivial_pad(o, i, k, s, d);
    if (p < 0) fail("o", axis, " ", o, ": implies negative padding p", axis, " ", p, " (i", axis, i, " k", axis, k, ")");
  }
}

}  // namespace

ConvDesc parse_conv_desc(const std::string& text) {
  RawDesc r;
  const char* s = text.c_str();
  // Longest names first so "ic" is not read as "i"+"c".
  static const char* const kFields[] = {"mb", "ic", "id", "ih", "iw", "oc", "od", "oh", "ow", "kd", "kh", "kw",
                                        "sd", "sh", "sw", "pd", "ph", "pw", "dd", "dh", "dw", "g"};
  while (*s) {
    if (*s == '_' || std::isspace(static_cast<unsigned char>(*s))) {
      ++s;
      continue;
    }
    if (*s == 'n') {
      r.name = s + 1;
      break;
    }
    const char* field = nullptr;
    for (const char* f : kFields) {
      const size_t len = std::char_traits<char>::length(f);
      if (text.compare(s - text.c_str(), len, f) == 0) {
        field = f;
        break;
      }
    }
    if (!field) fail("'", text, "': unexpected '", std::string(s).substr(0, 8), "'");
    const std::string fname = field;
    s += fname.size();
    if (!std::isdigit(static_cast<unsigned char>(*s))) fail("'", text, "': field ", fname, " needs a non-negative number");
    char* end = nullptr;
    const long value = std::strtol(s, &end, 10);
    s = end;
    if (value > 1000000000L) fail("'", text, "': field ", fname, " value ", value, " is too large");
    if (fname == "g") { r.g = value; r.has_g = true; }
    else if (fname == "mb") r.mb = value;
    else if (fname == "ic") r.ic = value;
    else if (fname == "id") r.id = value;
    else if (fname == "ih") r.ih = value;
    else if (fname == "iw") r.iw = value;
    else if (fname == "oc") r.oc = value;
    else if (fname == "od") r.od = value;
    else if (fname == "oh") r.oh = value;
    else if (fname == "ow") r.ow = value;
    else if (fname == "kd") r.kd = value;
    else if (fname == "kh") r.kh = value;
    else if (fname == "kw") r.kw = value;
    else if (fname == "sd") { r.sd = value; r.has_sd = true; }
    else if (fname == "sh") r.sh = value;
    else if (fname == "sw") r.sw = value;
    else if (fname == "pd") { r.pd = value; r.has_pd = true; }
    else if (fname == "ph") r.ph = value;
    else if (fname == "pw") r.pw = value;
    else if (fname == "dd") { r.dd = value; r.has_dd = true; }
    else if (fname == "dh") r.dh = value;
    else if (fname == "dw") r.dw = value;
  }
  try {
    if (r.id || r.od || r.kd || (r.has_sd && r.sd != 1) || (r.has_pd && r.pd > 0) || (r.has_dd && r.dd > 0))
      fail("3-D problems (id/od/kd/sd/pd/dd) are not supported");
    if (r.has_g && r.g <= 0) fail("g must be positive");
    if (r.mb <= 0) fail("mb must be positive");
    if (r.ic <= 0) fail("ic is missing or zero");
    if (r.oc <= 0) fail("oc is missing or zero");
    if (r.ic % r.g != 0) fail("ic ", r.ic, " is not divisible by g ", r.g);
    if (r.oc % r.g != 0) fail("oc ", r.oc, " is not divisible by g ", r.g);

    const bool no_h = (r.ih | r.kh | r.oh | r.dh) == 0 && r.sh == 1 && r.ph < 1;
    const bool no_w = (r.iw | r.kw | r.ow | r.dw) == 0 && r.sw == 1 && r.pw < 1;
    if (no_h && no_w) fail("no spatial sizes (ih/iw, kh/kw)");
    if (no_h) {  // 1-D problem along w
      r.ih = r.kh = r.oh = 1;
      r.ph = 0;
    }
    if (no_w) {  // square: w copies h
      r.iw = r.ih;
      r.kw = r.kh;
      r.ow = r.oh;
      r.sw = r.sh;
      r.pw = r.ph;
      r.dw = r.dh;
    }
    resolve_axis("h", r.ih, r.kh, r.oh, r.sh, r.ph, r.dh);
    resolve_axis("w", r.iw, r.kw, r.ow, r.sw, r.pw, r.dw);
    if (no_w) {  // oh/ph may have been derived above; the copies must follow
      r.ow = r.oh;
      r.pw = r.ph;
    }

    ConvDesc d;
    d.mb = static_cast<int>(r.mb);
    d.g = static_cast<int>(r.g);
    d.has_groups = r.has_g;
    d.ic = static_cast<int>(r.ic);
    d.ih = static_cast<int>(r.ih);
    d.iw = static_cast<int>(r.iw);
    d.oc = static_cast<int>(r.oc);
    d.oh = static_cast<int>(r.oh);
    d.ow = static_cast<int>(r.ow);
    d.kh = static_cast<int>(r.kh);
    d.kw = static_cast<int>(r.kw);
    d.sh = static_cast<int>(r.sh);
    d.sw = static_cast<int>(r.sw);
    d.pad_top = static_cast<int>(r.ph);
    d.pad_left = static_cast<int>(r.pw);
    d.dilation_h = static_cast<int>(r.dh + 1);
    d.dilation_w = static_cast<int>(r.dw + 1);
    const long pad_b = implied_pad_r(r.oh, r.ih, r.kh, r.sh, r.ph, r.dh);
    const long pad_r = implied_pad_r(r.ow, r.iw, r.kw, r.sw, r.pw, r.dw);
    // Down to -(stride-1) the output simply does not reach the last rows (floor); below
    // that the given output would need cropping, which no convolution does.
    if (pad_b <= -r.sh) fail("oh ", r.oh, ": implies negative bottom padding ", pad_b);
    if (pad_r <= -r.sw) fail("ow ", r.ow, ": implies negative right padding ", pad_r);
    d.pad_bottom = static_cast<int>(pad_b);
    d.pad_right = static_cast<int>(pad_r);
    std::string name = r.name;
    if (name.size() >= 2 && name.front() == '"' && name.back() == '"') name = name.substr(1, name.size() - 2);
    const size_t star = name.rfind('*');
    if (star != std::string::npos && star + 1 < name.size()) {
      const std::string count = name.substr(star + 1);
      if (count.find_first_not_of("0123456789") == std::string::npos) {
        d.repeat = std::atoi(count.c_str());
        if (d.repeat <= 0) fail("name suffix *", count, " must be positive");
        name = name.substr(0, star);
      }
    }
    d.name = name;
    return d;
  } catch (const Error& e) {
    fail("'", text, "': ", e.what());
  }
}

std::string to_string(const ConvDesc& d) {
  std::ostringstream os;
  if (d.has_groups || d.g != 1) os << "g" << d.g;
  os << "mb" << d.mb << "_ic" << d.ic << "ih" << d.ih << "iw" << d.iw << "_oc" << d.oc << "oh" << d.oh << "ow" << d.ow
     << "_kh" << d.kh << "kw" << d.kw << "_sh" << d.sh << "sw" << d.sw << "_ph" << d.pad_top << "pw" << d.pad_left
     << "_dh" << d.dilation_h - 1 << "dw" << d.dilation_w - 1;
  if (!d.name.empty()) {
    os << "_n\"" << d.name;
    if (d.repeat > 1) os << "*" << d.repeat;
    os << "\"";
  }
  return os.str();
}

std::vector<ShapeFileEntry> parse_shape_text(const std::string& text) {
  std::vector<ShapeFileEntry> entries;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    number++;
    // A '#' inside the quoted name is part of the name; outside it starts a comment.
    bool quoted = false;
    size_t cut = line.size();
    for (size_t i = 0; i < line.size(); i++) {
      if (line[i] == '"') quoted = !quoted;
      if (line[i] == '#' && !quoted) {
        cut = i;
        break;
      }
    }
    std::string body = line.substr(0, cut);
    const size_t first = body.find_first_not_of(" \t\r");
    if (first == std::string::npos) continue;
    const size_t last = body.find_last_not_of(" \t\r");
    body = body.substr(first, last - first + 1);
    ShapeFileEntry entry;
    entry.line = number;
    entry.text = body;
    try {
      entry.desc = parse_conv_desc(body);
    } catch (const Error& e) {
      entry.error = e.what();
    }
    entries.push_back(entry);
  }
  return entries;
}

std::vector<ShapeFileEntry> read_shape_file(const std::string& path) {
  std::ifstream file(path);
  if (!file) fail("cannot open shape file '", path, "'");
  std::stringstream buffer;
  buffer << file.rdbuf();
  std::vector<ShapeFileEntry> entries = parse_shape_text(buffer.str());
  for (auto& e : entries)
    if (!e.error.empty()) e.error = path + ":" + std::to_string(e.line) + ": " + e.error;
  return entries;
}

}  // namespace jitconv
