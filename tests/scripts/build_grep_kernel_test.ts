import { moduleText } from "../../scripts/build_grep_kernel.ts";
import { GREP_KERNEL_BASE64 } from "../../lib/grep/kernel/grep_kernel_bytes.ts";
import { testKernelFiles } from "../support/kernel_files.ts";

testKernelFiles("grep", "lib/grep/kernel", moduleText, GREP_KERNEL_BASE64);
