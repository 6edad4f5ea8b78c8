// Fatbin containers and ELF reading on synthetic inputs: plain, zstd and
// LZ4 entries, PTX entries skipped, and every kind of truncation or
// corruption reported with its offset, never read past.
#include "racetrack/code/fatbin.h"

#include <gtest/gtest.h>
#include <zstd.h>

#include <cstring>

#include "racetrack/code/kernel_layout.h"

namespace racetrack::code {
namespace {

template <typename T>
void put(std::vector<uint8_t>& b, size_t at, T v) {
  if (b.size() < at + sizeof v) b.resize(at + sizeof v);
  std::memcpy(b.data() + at, &v, sizeof v);
}

// One entry: kind, arch, flags, the stored payload and the raw size.
std::vector<uint8_t> entry(uint16_t kind, uint32_t arch, uint64_t flags, const std::vector<uint8_t>& payload,
                           uint64_t raw_size) {
  std::vector<uint8_t> e(64, 0);
  const uint64_t padded = (payload.size() + 7) / 8 * 8;
  put<uint16_t>(e, 0, kind);
  put<uint16_t>(e, 2, 0x0101);
  put<uint32_t>(e, 4, 64);
  put<uint64_t>(e, 8, padded);
  put<uint32_t>(e, 16, flags ? static_cast<uint32_t>(payload.size()) : 0);
  put<uint32_t>(e, 28, arch);
  put<uint64_t>(e, 40, flags | 0x11);
  put<uint64_t>(e, 56, flags ? raw_size : 0);
  e.insert(e.end(), payload.begin(), payload.end());
  e.resize(64 + padded, 0);
  return e;
}

std::vector<uint8_t> container(const std::vector<std::vector<uint8_t>>& entries) {
  std::vector<uint8_t> c(16, 0);
  size_t size = 0;
  for (const auto& e : entries) size += e.size();
  put<uint32_t>(c, 0, kFatbinMagic);
  put<uint16_t>(c, 4, 1);
  put<uint16_t>(c, 6, 16);
  put<uint64_t>(c, 8, size);
  for (const auto& e : entries) c.insert(c.end(), e.begin(), e.end());
  return c;
}

// A minimal ELF64 header claiming EM_CUDA and no sections.
std::vector<uint8_t> fake_cubin(uint8_t tag) {
  std::vector<uint8_t> e(64, 0);
  e[0] = 0x7f, e[1] = 'E', e[2] = 'L', e[3] = 'F', e[4] = 2, e[5] = 1, e[6] = 1;
  put<uint16_t>(e, 18, kMachineCuda);
  e.push_back(tag);
  e.resize(80, tag);
  return e;
}

std::vector<uint8_t> zstd(const std::vector<uint8_t>& raw) {
  std::vector<uint8_t> out(ZSTD_compressBound(raw.size()));
  out.resize(ZSTD_compress(out.data(), out.size(), raw.data(), raw.size(), 3));
  return out;
}

// LZ4 block: all but the last 8 bytes as 4 literals + one long match, then literals.
std::vector<uint8_t> lz4_literals(const std::vector<uint8_t>& raw) {
  std::vector<uint8_t> out;
  size_t n = raw.size();
  out.push_back(static_cast<uint8_t>(std::min<size_t>(n, 15) << 4));
  if (n >= 15) {
    n -= 15;
    while (n >= 255) out.push_back(255), n -= 255;
    out.push_back(static_cast<uint8_t>(n));
  }
  out.insert(out.end(), raw.begin(), raw.end());
  return out;
}

Bytes view(const std::vector<uint8_t>& v) {
  return Bytes(v.data(), v.size());
}

TEST(Fatbin, PlainCompressedAndPtxEntries) {
  const auto a = fake_cubin(1), b = fake_cubin(2), c = fake_cubin(3);
  const std::vector<uint8_t> ptx = {'.', 'v', 'e', 'r'};
  const auto fat = container({entry(2, 80, 0, a, 0), entry(2, 90, 0x8000, zstd(b), b.size()),
                              entry(1, 90, 0, ptx, 0), entry(2, 100, 0x2000, lz4_literals(c), c.size())});
  auto set = find_cubins(view(fat));
  ASSERT_TRUE(set) << set.error().describe();
  EXPECT_EQ(set->kind, InputKind::kFatbin);
  ASSERT_EQ(set->cubins.size(), 3u);
  EXPECT_EQ(set->ptx_entries, 1u);
  EXPECT_EQ(set->cubins[0].arch, 80u);
  EXPECT_EQ(set->cubins[0].image, a);
  EXPECT_EQ(set->cubins[1].image, b);
  EXPECT_EQ(set->cubins[2].arch, 100u);
  EXPECT_EQ(set->cubins[2].image, c);
}

TEST(Fatbin, SeveralContainersBackToBack) {
  auto fat = container({entry(2, 80, 0, fake_cubin(1), 0)});
  const auto second = container({entry(2, 90, 0, fake_cubin(2), 0)});
  fat.insert(fat.end(), second.begin(), second.end());
  CubinSet set;
  ASSERT_TRUE(extract_fatbins(view(fat), 0, set));
  EXPECT_EQ(set.fatbins, 2u);
  EXPECT_EQ(set.cubins.size(), 2u);
}

TEST(Fatbin, EveryTruncationIsAnErrorWithAnOffset) {
  const auto b = fake_cubin(7);
  const auto fat = container({entry(2, 80, 0, fake_cubin(1), 0), entry(2, 90, 0x8000, zstd(b), b.size())});
  for (size_t cut = 1; cut < fat.size(); ++cut) {
    std::vector<uint8_t> part(fat.begin(), fat.begin() + static_cast<std::ptrdiff_t>(cut));
    CubinSet set;
    auto status = extract_fatbins(view(part), 0, set);
    if (cut < 16) continue;  // shorter than a header: nothing to read
    EXPECT_FALSE(status) << "cut at " << cut;
    if (!status) {
      EXPECT_TRUE(status.error().offset.has_value());
    }
  }
}

TEST(Fatbin, CorruptCompressedPayloadIsAnError) {
  const auto b = fake_cubin(5);
  auto z = zstd(b);
  z[z.size() / 2] ^= 0xff;
  z[4] ^= 0x55;
  auto fat = container({entry(2, 90, 0x8000, z, b.size())});
  CubinSet set;
  EXPECT_FALSE(extract_fatbins(view(fat), 0, set));
  // A stated size the LZ4 block does not give.
  auto lz = container({entry(2, 90, 0x2000, lz4_literals(b), b.size() + 10)});
  CubinSet set2;
  EXPECT_FALSE(extract_fatbins(view(lz), 0, set2));
}

TEST(Lz4, MatchesCopyOverlapping) {
  // "ab" then a match of offset 2, length 6: "abababab".
  const std::vector<uint8_t> block = {0x22, 'a', 'b', 0x02, 0x00, 0x00};  // 2 literals, match 2+4
  std::vector<uint8_t> out(8);
  // token 0x22: 2 literals, match length 2+4 = 6; then an empty last sequence.
  ASSERT_TRUE(lz4_decompress_block(view({0x22, 'a', 'b', 0x02, 0x00, 0x00}), out));
  EXPECT_EQ(std::string(out.begin(), out.end()), "abababab");
  std::vector<uint8_t> bad(8);
  EXPECT_FALSE(
      lz4_decompress_block(view({0x22, 'a', 'b', 0x09, 0x00, 0x00}), bad));  // offset before the output
  (void)block;
}

TEST(Elf, RejectsWhatIsNoElf) {
  const std::vector<uint8_t> junk(100, 0x41);
  auto set = find_cubins(view(junk));
  ASSERT_FALSE(set);
  EXPECT_NE(set.error().message.find("neither an ELF"), std::string::npos);
  auto cubin = fake_cubin(1);
  cubin.resize(40);
  EXPECT_FALSE(ElfImage::parse(view(cubin)));
  // Section headers pointing past the end.
  auto bad = fake_cubin(1);
  put<uint64_t>(bad, 0x28, 1000000);
  put<uint16_t>(bad, 0x3a, 64);
  put<uint16_t>(bad, 0x3c, 3);
  EXPECT_FALSE(ElfImage::parse(view(bad)));
}

TEST(Elf, HostElfWithoutFatbinSaysSo) {
  auto host = fake_cubin(1);
  put<uint16_t>(host, 18, 62);  // EM_X86_64
  auto set = find_cubins(view(host));
  ASSERT_FALSE(set);
  EXPECT_NE(set.error().message.find(".nv_fatbin"), std::string::npos);
}

TEST(NvInfo, ParamCbankAndKparamInfo) {
  // As ptxas writes them for k_copy(float*, const float*, int) on sm_90.
  const std::vector<uint8_t> info = {0x04, 0x37, 0x04, 0x00, 0x82, 0x00, 0x00, 0x00,  // CUDA_API_VERSION
                                     0x04, 0x17, 0x0c, 0x00, 0,    0,    0,    0,    0x02,
                                     0x00, 0x10, 0x00, 0x00, 0xf0, 0x11, 0x00,  // param 2 @0x10, 4 bytes
                                     0x04, 0x17, 0x0c, 0x00, 0,    0,    0,    0,    0x01,
                                     0x00, 0x08, 0x00, 0x00, 0xf0, 0x21, 0x00,  // param 1 @0x8, 8 bytes
                                     0x03, 0x1b, 0xff, 0x00,                    // MAXREG_COUNT
                                     0x04, 0x0a, 0x08, 0x00, 0x09, 0,    0,    0,    0x10,
                                     0x02, 0x14, 0x00};  // PARAM_CBANK
  KernelLayout l;
  ASSERT_TRUE(parse_nv_info(view(info), l));
  ASSERT_TRUE(l.param_base);
  EXPECT_EQ(*l.param_base, 0x210u);
  EXPECT_EQ(l.param_size, 0x14u);
  EXPECT_EQ(l.words(), 3u);
  ASSERT_EQ(l.params.size(), 2u);
  EXPECT_EQ(l.params[0].ordinal, 1u);
  EXPECT_EQ(l.params[0].size, 8u);
  EXPECT_EQ(l.params[1].offset, 0x10u);
  std::vector<uint8_t> cut(info.begin(), info.begin() + 30);
  KernelLayout l2;
  EXPECT_FALSE(parse_nv_info(view(cut), l2));
}

}  // namespace
}  // namespace racetrack::code
