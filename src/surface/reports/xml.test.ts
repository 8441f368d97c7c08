import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { xmlAttr, xmlElement, xmlText } from './xml';

describe('xml writer', () => {
  it('escapes markup in text and quotes and whitespace in attributes', () => {
    expect(xmlText('a < b && c > d "q"')).toBe('a &lt; b &amp;&amp; c &gt; d "q"');
    expect(xmlAttr(`x="1" & y='2'\n\tz\r`)).toBe('x=&quot;1&quot; &amp; y=&apos;2&apos;&#10;&#9;z&#13;');
    expect(xmlText(']]>')).toBe(']]&gt;');
  });

  it('replaces characters XML 1.0 forbids (controls, lone surrogates) and keeps astral ones', () => {
    expect(xmlText('a\u0000b\u001Fc\uFFFE')).toBe('a\uFFFDb\uFFFDc\uFFFD');
    expect(xmlAttr('x\uD800y')).toBe('x\uFFFDy');
    expect(xmlText('✅ 😀 tab\tnl\n')).toBe('✅ 😀 tab\tnl\n');
  });

  it('writes elements that a well-kept parser reads back unchanged', () => {
    const nasty = `<&>"'\n\t ok ✓ \u0007`;
    const xml = xmlElement('root', { a: nasty, skip: undefined, n: 3 }, [xmlElement('leaf', { b: 'x' }, nasty), xmlElement('empty', {})]);
    expect(XMLValidator.validate(xml)).toBe(true);
    const doc = new XMLParser({ ignoreAttributes: false, trimValues: false, processEntities: true, htmlEntities: true }).parse(xml) as {
      root: { '@_a': string; '@_n': string; '@_skip'?: string; leaf: { '#text': string; '@_b': string }; empty: string };
    };
    expect(doc.root['@_a']).toBe(nasty.replace('\u0007', '\uFFFD'));
    expect(doc.root['@_n']).toBe('3');
    expect(doc.root['@_skip']).toBeUndefined();
    expect(doc.root.leaf['#text']).toBe(nasty.replace('\u0007', '\uFFFD'));
    expect(doc.root.empty).toBe('');
  });
});
